// Live updates: one stream per tab (EventSource on #live[data-url]): the person's new
// notifications (the bell) and, in a project, the project's events.
// A list (or record) marked data-live-kind counts the changes to its kind of record and offers
// "N changes — show" rather than moving rows under the person's finger.
let source = null;
let url = null;
let waiting = 0;
const me = () => document.getElementById("live")?.dataset.me;

const banner = () => document.getElementById("live-banner");

const watched = () => document.querySelector("[data-live-kind]");

const show = () => {
  const target = watched();
  const b = banner();
  if (!target || !b) return;
  b.hidden = false;
  const button = document.createElement("button");
  button.type = "button";
  button.className = "button button-quiet";
  button.textContent = (target.dataset.liveLabel || "%n changes — show").replace("%n", waiting);
  button.addEventListener("click", () => {
    waiting = 0;
    b.hidden = true;
    b.replaceChildren();
    const refresh = target.dataset.liveRefresh || window.location.href;
    window.htmx.ajax("GET", refresh, { target: "#" + target.id, swap: "outerHTML" });
  });
  b.replaceChildren(button);
};

const connect = () => {
  const wanted = document.getElementById("live")?.dataset.url || null;
  if (wanted === url) return;
  source?.close();
  source = null;
  url = wanted;
  waiting = 0;
  if (!url) return;
  source = new EventSource(url);
  source.addEventListener("change", (event) => {
    const target = watched();
    if (!target) return;
    let data = {};
    try { data = JSON.parse(event.data); } catch { return; }
    const kinds = target.dataset.liveKind.split(" ");
    if (!kinds.includes(data.resource)) return;
    const record = target.dataset.liveId;
    if (record && data.id !== record) return;
    if (data.by && data.by === me()) return;  // one's own change
    waiting += 1;
    show();
  });
  // A notification for this person: the bell is asked for again (its count, read aloud).
  source.addEventListener("notification", () => {
    window.htmx?.ajax("GET", "/app/notifications/bell", { target: "#bell", swap: "outerHTML" });
  });
  source.onerror = () => {
    // The browser reconnects by itself; a closed stream (signed out, server gone) is let go.
    if (source?.readyState === EventSource.CLOSED) { source = null; url = null; }
  };
};

connect();
document.addEventListener("htmx:afterSettle", connect);  // a boosted move to another project
