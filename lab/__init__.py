"""Studies and their drivers, outside the package (lab/README.md): run them as `python -m lab.NAME`
from a checkout with an editable install."""
