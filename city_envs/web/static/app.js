// The only script of the app: the bots' turn moves on by itself, a place clicked on the board presses
// its action's button (by mouse, or Enter on a focused place), and a replay steps with the arrow keys.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("#board .choice[data-action]").forEach((area) => {
    const choose = () => {
      const button = document.querySelector(`#actions button[value="${area.dataset.action}"]`);
      if (button) button.click();
    };
    area.addEventListener("click", choose);
    area.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        choose();
      }
    });
  });
  if (document.body.dataset.botsToMove === "1") {
    const form = document.getElementById("advance");
    if (form) setTimeout(() => form.submit(), 150);
  }
  // a replay's log shows the decision asked for in its middle, or its last decisions at the end
  const log = document.querySelector(".log");
  const current = log && log.querySelector("li.current");
  if (current) {
    log.scrollTop = current.offsetTop - log.offsetTop - log.clientHeight / 2;
  } else if (log && log.classList.contains("at-end")) {
    log.scrollTop = log.scrollHeight;
  }
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT") return;
    const link = { ArrowLeft: "back", ArrowRight: "forward" }[event.key];
    const anchor = link && document.getElementById(link);
    if (anchor) window.location.href = anchor.href;
  });
});
