// The only script of the app: the bots' turn moves on by itself, a place clicked on the board presses
// its action's button, and a replay steps with the arrow keys.
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("#board-map [data-action]").forEach((area) => {
    area.addEventListener("click", () => {
      const button = document.querySelector(`#actions button[value="${area.dataset.action}"]`);
      if (button) button.click();
    });
  });
  if (document.body.dataset.botsToMove === "1") {
    const form = document.getElementById("advance");
    if (form) setTimeout(() => form.submit(), 150);
  }
  const current = document.querySelector(".log li.current");
  if (current) {
    const log = current.closest(".log");
    log.scrollTop = current.offsetTop - log.offsetTop - log.clientHeight / 2;
  }
  document.addEventListener("keydown", (event) => {
    if (event.target.tagName === "INPUT") return;
    const link = { ArrowLeft: "back", ArrowRight: "forward" }[event.key];
    const anchor = link && document.getElementById(link);
    if (anchor) window.location.href = anchor.href;
  });
});
