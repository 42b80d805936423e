// The only script of the app: the bots' moves come one at a time into the open page (each a request that
// plays one move and answers with the page, whose content replaces this one's: no reload), a watcher's
// page takes in the table the same way when it has moved on, a place
// clicked on the board presses its action's button (by mouse, or Enter on a focused place), a layer switch
// on the board shows its layer's places in place of the others (Blue Moon City's dragon moves), and a
// replay steps with the arrow keys.
const BOT_PAUSE_MS = 350; // between two bot moves, so a person can follow them

function choose(area) {
  const button = document.querySelector(`#actions button[value="${area.dataset.action}"]`);
  if (button) button.click();
}

// the board's places of layer `layer` shown and the others hidden, or, if it is on already, the places
// of no layer again
function toggleLayer(svg, layer) {
  const shown = svg.dataset.layer === layer ? "" : layer;
  if (shown) svg.dataset.layer = shown;
  else delete svg.dataset.layer;
  for (const area of svg.querySelectorAll(".choice[data-layer]")) {
    area.classList.toggle("shown", area.dataset.layer === shown);
  }
  for (const other of svg.querySelectorAll(".layer-switch")) {
    const on = other.dataset.layer === shown;
    other.classList.toggle("on", on);
    other.setAttribute("aria-pressed", on ? "true" : "false");
  }
}

function press(target) {
  const area = target.closest && target.closest("#board .choice[data-action]");
  if (area) {
    choose(area);
    return true;
  }
  const layerSwitch = target.closest && target.closest("#board .layer-switch");
  if (layerSwitch) toggleLayer(layerSwitch.closest("svg"), layerSwitch.dataset.layer);
  return Boolean(layerSwitch);
}

document.addEventListener("click", (event) => press(event.target));
document.addEventListener("keydown", (event) => {
  if ((event.key === "Enter" || event.key === " ") && press(event.target)) {
    event.preventDefault();
    return;
  }
  if (event.target.tagName === "INPUT") return;
  const link = { ArrowLeft: "back", ArrowRight: "forward" }[event.key];
  const anchor = link && document.getElementById(link);
  if (anchor) window.location.href = anchor.href;
});

const FOLLOW_MS = 2000; // how often a watcher's page asks for the table

// put the page `response` answers with in place of this one (an error page, or anything unexpected,
// is shown whole instead)
async function swapIn(response, section) {
  const page = new DOMParser().parseFromString(await response.text(), "text/html");
  const main = page.querySelector("main");
  if (!response.ok || !main || !response.url.startsWith(`${window.location.origin}/${section}/`)) {
    window.location.href = response.url;
    return;
  }
  if (response.url !== window.location.href) window.history.replaceState(null, "", response.url);
  document.querySelector("main").replaceWith(main);
  document.title = page.title;
  for (const key of ["botsToMove", "step", "follow"]) {
    if (page.body.dataset[key] === undefined) delete document.body.dataset[key];
    else document.body.dataset[key] = page.body.dataset[key];
  }
  settle();
}

// one bot move: POST the advance form for one move; the page it answers with replaces this one's
async function botMove(form) {
  const url = new URL(form.action);
  url.searchParams.set("moves", "1");
  const body = new URLSearchParams(new FormData(form));
  await swapIn(await fetch(url, { method: "POST", body, credentials: "same-origin" }), "games");
}

// a watcher's page: the table again, in place, once it has moved on
async function follow() {
  const response = await fetch(window.location.href, { credentials: "same-origin" });
  const page = response.clone();
  const step = new DOMParser().parseFromString(await page.text(), "text/html").body.dataset.step;
  if (!response.ok || step !== document.body.dataset.step) await swapIn(response, "watch");
  else settle();
}

function settle() {
  if (document.body.dataset.botsToMove === "1") {
    const form = document.getElementById("advance");
    if (form) setTimeout(() => botMove(form).catch(() => form.submit()), BOT_PAUSE_MS);
  } else if (document.body.dataset.follow === "1") {
    setTimeout(() => follow().catch(() => window.location.reload()), FOLLOW_MS);
  }
  // a replay's log (the moves made so far, oldest first) shows its latest
  const log = document.querySelector(".log.at-end");
  if (log) log.scrollTop = log.scrollHeight;
}

document.addEventListener("DOMContentLoaded", settle);
