// Docent's viewer: search as you type, live results and previews over Server-Sent Events,
// keyboard first. Every fragment comes from the server already escaped; this script only
// places it. No inline script anywhere: the page's Content-Security-Policy forbids it.
"use strict";

const $ = (selector) => document.querySelector(selector);

/// Timings of the last keystrokes (input event to results on the page, ms), and the server's
/// share of each (its Server-Timing), for the benchmark.
window.docentTimings = [];
window.docentServerTimings = [];

const search = {
  controller: null,
  events: null,
  eventsTimer: 0,
  generation: 0,

  parameters() {
    const p = new URLSearchParams();
    const q = $("#q").value;
    if (q) p.set("q", q);
    if ($("#group").value) p.set("group", $("#group").value);
    if ($("#root").value) p.set("root", $("#root").value);
    return p;
  },

  async run() {
    const started = performance.now();
    pictures.cancel();  // the last results' pictures are not wanted now: typing goes on
    const parameters = this.parameters();
    if (this.controller) this.controller.abort();
    this.controller = new AbortController();
    const generation = ++this.generation;
    try {
      // "no-store": the answers are never cached (the server says so too), so the browser's
      // HTTP cache is not even looked up on the way out.
      const response = await fetch("/api/search?" + parameters, { signal: this.controller.signal, cache: "no-store" });
      const html = await response.text();
      if (generation !== this.generation) return;
      this.show(html);
      pictures.later();
      window.docentTimings.push(performance.now() - started);
      // The address and title follow the query once its results are placed (both reach the
      // browser's own process, which a keystroke's results need not wait for).
      history.replaceState(null, "", parameters.toString() ? "/?" + parameters : "/");
      document.title = $("#q").value ? $("#q").value + " — Docent" : "Docent";
      const timing = performance.getEntriesByName(response.url).pop()?.serverTiming?.find((t) => t.name === "search");
      if (timing) window.docentServerTimings.push(timing.duration);
      performance.clearResourceTimings();
    } catch (error) {
      if (error.name !== "AbortError") $("#problem").textContent = "The viewer is not answering: " + error.message;
    }
    clearTimeout(this.eventsTimer);
    this.eventsTimer = setTimeout(() => this.follow(), 200);
  },

  /// Places a results fragment, keeping the chosen hit chosen.
  show(html) {
    const chosen = list.chosen()?.dataset.id;
    $("#results").innerHTML = html;
    if (chosen) list.choose(document.getElementById("hit-" + chosen), false);
  },

  /// Follows the query: the results come again whenever a file starts or stops matching.
  follow() {
    if (this.events) this.events.close();
    this.events = null;
    const parameters = this.parameters();
    if (!parameters.toString()) return;
    this.events = new EventSource("/events/search?" + parameters);
    this.events.addEventListener("results", (event) => {
      this.show(event.data);
      const fresh = document.querySelectorAll("#hits li.new").length;
      if (fresh) $("#problem").textContent += ` (${fresh} new)`;
    });
  },
};

/// Thumbnails of a typed query's hits load once typing pauses (the server names them in
/// data-src): each keystroke's list would otherwise ask for pictures the next one replaces,
/// and load them while the next keystroke's search runs.
const pictures = {
  timer: 0,
  cancel() { clearTimeout(this.timer); },
  later() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      for (const image of document.querySelectorAll("#hits img[data-src]")) {
        image.src = image.dataset.src;
        image.removeAttribute("data-src");
      }
    }, 150);
  },
};

const list = {
  items() { return Array.from(document.querySelectorAll("#hits li")); },
  chosen() { return document.querySelector("#hits li[aria-selected=true]"); },
  choose(item, focus = true) {
    for (const other of this.items()) other.removeAttribute("aria-selected");
    if (!item) return;
    item.setAttribute("aria-selected", "true");
    if (focus) {
      item.querySelector("a").focus();
      item.scrollIntoView({ block: "nearest" });
    }
  },
  move(step) {
    const items = this.items();
    if (!items.length) return;
    const at = items.indexOf(this.chosen());
    const next = at < 0 ? (step > 0 ? 0 : items.length - 1) : Math.max(0, Math.min(items.length - 1, at + step));
    this.choose(items[next]);
  },
};

const preview = {
  events: null,
  id: null,

  async open(id) {
    this.id = id;
    const pane = $("#preview");
    pane.setAttribute("aria-busy", "true");
    const response = await fetch("/api/preview/" + id);
    if (this.id !== id) return;
    pane.innerHTML = await response.text();
    pane.removeAttribute("aria-busy");
    document.body.classList.add("previewing");
    this.follow(id);
  },

  /// The preview again each time the file changes on disk.
  follow(id) {
    if (this.events) this.events.close();
    this.events = new EventSource("/events/preview/" + id);
    this.events.addEventListener("preview", (event) => {
      if (this.id === id || this.id === null) $("#preview").innerHTML = event.data;
    });
  },

  close() {
    if (this.events) this.events.close();
    this.events = null;
    this.id = null;
    document.body.classList.remove("previewing");
  },
};

function start() {
  // Pictures that cannot be made (no cover art, an image that will not decode) leave no broken icon.
  document.addEventListener("error", (event) => {
    if (event.target.tagName === "IMG") event.target.classList.add("broken");
  }, true);

  // A status page follows the watcher and the index.
  if ($("#status-page")) {
    const events = new EventSource("/events/status");
    events.addEventListener("status", (event) => { $("#status-page").innerHTML = event.data; });
    return;
  }
  // A preview page of its own follows its file.
  const single = document.querySelector("#preview[data-follow]");
  if (single) {
    preview.id = single.dataset.follow;
    preview.follow(single.dataset.follow);
    return;
  }
  if (!$("#q")) return;

  $("#q").addEventListener("input", () => search.run());
  $("#group").addEventListener("change", () => search.run());
  $("#root").addEventListener("change", () => search.run());
  $("#search").addEventListener("submit", (event) => { event.preventDefault(); search.run(); });
  search.follow();

  $("#results").addEventListener("click", (event) => {
    const item = event.target.closest("#hits li");
    if (!item || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    list.choose(item);
    preview.open(item.dataset.id);
  });

  document.addEventListener("keydown", (event) => {
    const inField = event.target === $("#q");
    if (event.key === "ArrowDown") { event.preventDefault(); list.move(inField && !list.chosen() ? 0 : 1); }
    else if (event.key === "ArrowUp") {
      event.preventDefault();
      if (list.items().indexOf(list.chosen()) <= 0) { list.choose(null); $("#q").focus(); } else list.move(-1);
    } else if (event.key === "Enter" && !inField) {
      const item = list.chosen();
      if (item) { event.preventDefault(); preview.open(item.dataset.id); }
    } else if (event.key === "Enter" && inField) {
      // Enter in the field opens the first (or chosen) hit.
      const item = list.chosen() || list.items()[0];
      if (item) { event.preventDefault(); list.choose(item); preview.open(item.dataset.id); }
    } else if (event.key === "Escape") {
      if (document.body.classList.contains("previewing")) {
        preview.close();
        const item = list.chosen();
        if (item) item.querySelector("a").focus(); else $("#q").focus();
      } else {
        list.choose(null);
        $("#q").focus();
        $("#q").select();
      }
    }
  });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
else start();
