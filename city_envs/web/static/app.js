// The only script of the app: the bots' turn moves on by itself, and a replay steps with the arrow keys.
document.addEventListener("DOMContentLoaded", () => {
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
