// The only script of the app: the bots' moves come one at a time into the open page (each a request that
// plays one move and answers with the page, whose content replaces this one's: no reload), a place
// clicked on the board presses its action's button (by mouse, or Enter on a focused place), and a replay
// steps with the arrow keys.
const BOT_PAUSE_MS = 350; // between two bot moves, so a person can follow them

function choose(area) {
  const button = document.querySelector(`#actions button[value="${area.dataset.action}"]`);
  if (button) button.click();
}

document.addEventListener("click", (event) => {
  const area = event.target.closest && event.target.closest("#board .choice[data-action]");
  if (area) choose(area);
});
document.addEventListener("keydown", (event) => {
  const area = event.target.closest && event.target.closest("#board .choice[data-action]");
  if (area && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    choose(area);
    return;
  }
  if (event.target.tagName === "INPUT") return;
  const link = { ArrowLeft: "back", ArrowRight: "forward" }[event.key];
  const anchor = link && document.getElementById(link);
  if (anchor) window.location.href = anchor.href;
});

// one bot move: POST the advance form for one move, and put the page it answers with in place of this one
async function botMove(form) {
  const url = new URL(form.action);
  url.searchParams.set("moves", "1");
  const response = await fetch(url, { method: "POST", body: new URLSearchParams(new FormData(form)),
    credentials: "same-origin" });
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const main = page.querySelector("main");
  if (!response.ok || !main || !response.url.startsWith(window.location.origin + "/games/")) {
    window.location.href = response.url; // an error page, or anything unexpected: show it whole
    return;
  }
  if (response.url !== window.location.href) window.history.replaceState(null, "", response.url);
  document.querySelector("main").replaceWith(main);
  document.title = page.title;
  document.body.dataset.botsToMove = page.body.dataset.botsToMove;
  document.body.dataset.step = page.body.dataset.step;
  settle();
}

function settle() {
  if (document.body.dataset.botsToMove === "1") {
    const form = document.getElementById("advance");
    if (form) setTimeout(() => botMove(form).catch(() => form.submit()), BOT_PAUSE_MS);
  }
  // a replay's log shows the decision asked for in its middle, or its last decisions at the end
  const log = document.querySelector(".log");
  const current = log && log.querySelector("li.current");
  if (current) {
    log.scrollTop = current.offsetTop - log.offsetTop - log.clientHeight / 2;
  } else if (log && log.classList.contains("at-end")) {
    log.scrollTop = log.scrollHeight;
  }
}

document.addEventListener("DOMContentLoaded", settle);
