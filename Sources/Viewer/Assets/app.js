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
    if ($("#sort") && $("#sort").value) p.set("sort", $("#sort").value);
    return p;
  },

  /// The next hits after the last shown, added below them (the "more" link, or scrolling to it).
  async more() {
    const link = $("#results a.more");
    if (!link || link.dataset.loading) return;
    link.dataset.loading = "1";
    const parameters = this.parameters();
    parameters.set("offset", link.dataset.offset);
    const generation = this.generation;
    const response = await fetch("/api/search?" + parameters, { cache: "no-store" });
    const holder = document.createElement("div");
    holder.innerHTML = await response.text();
    if (generation !== this.generation || !link.isConnected) return;
    $("#hits").append(...holder.querySelectorAll("#hits li"));
    const count = holder.querySelector("#problem");
    if (count) $("#problem").textContent = count.textContent.replace(/·.*–/, "· 1–");
    const next = holder.querySelector("a.more");
    if (next) { link.replaceWith(next); moreObserver.observe(next); } else link.remove();
    pictures.later();
  },

  async run() {
    const started = performance.now();
    loading.start();
    // A new query's results are what the reader wants to see: on a narrow screen, where the
    // preview covers the list, it closes.
    if (window.matchMedia("(max-width: 800px)").matches && document.body.classList.contains("previewing")) preview.close();
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
      loading.stop();
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
    const more = $("#results a.more");
    if (more) moreObserver.observe(more);
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

/// Something slow on its way (a search, a large document): said after 150 ms, not before
/// (a fast answer never flickers).
const loading = {
  timer: 0,
  start() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => document.body.classList.add("loading"), 150);
  },
  stop() {
    clearTimeout(this.timer);
    document.body.classList.remove("loading");
  },
};

/// More hits as the list is scrolled to its end.
const moreObserver = new IntersectionObserver((entries) => {
  for (const entry of entries) if (entry.isIntersecting) search.more();
}, { rootMargin: "300px 0px" });

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

/// Colours for source code: Debian's highlight.js, loaded on first need. Each line is
/// highlighted with the state the line before left (a comment or a string over several lines
/// stays one), and the query's marks are put back over the colours.
const colours = {
  loading: null,
  /// The state each coloured stretch ends in, for the stretch below it.
  ends: new WeakMap(),
  load() {
    if (window.hljs) return Promise.resolve(window.hljs);
    if (!this.loading) {
      this.loading = new Promise((resolve) => {
        const script = document.createElement("script");
        script.src = "/static/highlight.js";
        script.onload = () => resolve(window.hljs || null);
        script.onerror = () => resolve(null);  // not installed: plain text
        document.head.append(script);
      });
    }
    return this.loading;
  },

  async paint(section) {
    const language = section && section.dataset.language;
    if (!language) return;
    const hljs = await this.load();
    if (!hljs || !hljs.getLanguage(language)) return;
    const started = performance.now();
    for (const list of section.querySelectorAll("ol.lines:not(.coloured)")) {
      // The state a line starts in is known from the file's first line on, or from the end of
      // the stretch just above; elsewhere (a stretch opened in the middle, which may begin
      // inside a comment or string) each line is coloured on its own, so a construct opened
      // above cannot colour the whole stretch as one string.
      const above = list.previousElementSibling;
      const known = list.dataset.from === "1" || (above && this.ends.has(above) && Number(above.dataset.to) + 1 === Number(list.dataset.from));
      let state = known && above ? this.ends.get(above) : undefined;
      for (const item of list.children) {
        if (item.querySelector(".cut")) { state = undefined; continue; }  // a cut line stays as it is
        const marks = [];
        let offset = 0;
        for (const node of item.childNodes) {
          const length = node.textContent.length;
          if (node.nodeName === "MARK") marks.push([offset, offset + length, node.classList.contains("current")]);
          offset += length;
        }
        const result = hljs.highlight(language, item.textContent, true, state);
        state = known ? result.top : undefined;
        item.innerHTML = result.value;  // highlight.js escapes the text it is given
        for (const [start, end, current] of marks) markText(item, start, end, current);
      }
      if (known) this.ends.set(list, state);
      list.classList.add("coloured");
    }
    window.docentColourTimings = (window.docentColourTimings || []).concat(performance.now() - started);
  },
};

/// Wraps characters start..<end of an element's text in <mark>, piece by piece across its spans.
function markText(element, start, end, current) {
  const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
  const pieces = [];
  let offset = 0;
  while (walker.nextNode()) {
    const node = walker.currentNode, length = node.data.length;
    const from = Math.max(start, offset), to = Math.min(end, offset + length);
    if (from < to) pieces.push([node, from - offset, to - offset]);
    offset += length;
  }
  for (const [node, from, to] of pieces) {
    const middle = node.splitText(from);
    middle.splitText(to - from);
    const mark = document.createElement("mark");
    if (current) mark.className = "current";
    middle.replaceWith(mark);
    mark.append(middle);
  }
}

/// The reader: a document's whole text, numbered, opened at its first match. Stretches of
/// lines load as it scrolls; n and N (or the buttons) go to the next and previous match,
/// loading the stretch that holds it; "3 of 17" says where.
const reader = {
  section: null,
  matches: [],
  at: 0,
  loading: false,
  observer: null,

  start(section, openAtMatch = true) {
    this.section = section;
    if (!section) return;
    this.matches = section.dataset.matches ? section.dataset.matches.split(",").map(Number) : [];
    // The first screen came before the count: the matches' lines follow.
    this.counted = section.dataset.pending ? this.count(section) : Promise.resolve();
    section.addEventListener("click", (event) => {
      const step = event.target.closest("button.step");
      if (step) this.go(this.at + Number(step.dataset.step));
    });
    this.observe();
    if (openAtMatch && section.dataset.pending) this.first();
    else if (openAtMatch && this.matches.length) this.go(0, "center");
    else this.follow();
    colours.paint(section);
    // When the page first showed its reader (at its match), for the benchmark.
    if (window.docentReaderShown === undefined) window.docentReaderShown = performance.now();
  },

  /// The matches' lines, asked for once the first screen is shown.
  async count(section) {
    const response = await fetch(`/api/marks/${section.dataset.id}?` + new URLSearchParams({ q: section.dataset.q }));
    const { lines } = await response.json();
    if (section !== this.section) return;
    this.matches = lines;
    delete section.dataset.pending;
    const at = section.querySelector(".at");
    if (at) at.textContent = lines.length ? `${this.at + 1} of ${lines.length}` : "No match in the text";
  },

  /// The first screen's first mark, before the count is known.
  first() {
    const mark = this.section.querySelector("ol.lines mark");
    if (!mark) { this.follow(); return; }
    mark.classList.add("current");
    this.show(mark, "center");
    this.at = 0;
  },

  /// Scrolls to a match. In a PDF the picture of the page being read follows beside the
  /// lines; where the screen is too narrow for both, each page's picture is at its start, and
  /// the page's top is shown when the match is still in view from there.
  show(mark, block) {
    const paged = mark.closest(".paged");
    if (paged && !this.pageView(paged)) {
      let page = mark.closest("li");
      while (page && !page.classList.contains("page-start")) page = page.previousElementSibling;
      const picture = page && page.querySelector("img");
      if (picture) {
        const drawn = () => { if (window.docentPageShown === undefined) window.docentPageShown = performance.now(); };
        if (picture.complete && picture.naturalWidth) drawn(); else picture.addEventListener("load", drawn, { once: true });
        const scroller = this.scroller();
        const height = scroller === document.scrollingElement ? window.innerHeight : scroller.clientHeight;
        if (mark.getBoundingClientRect().bottom - page.getBoundingClientRect().top < height - 60) {
          page.scrollIntoView({ block: "start" });
          return;
        }
      }
    }
    mark.scrollIntoView({ block });
    this.follow();
  },

  /// The picture beside the lines, when shown (not on a narrow screen).
  pageView(paged) {
    const aside = paged.querySelector(".page-view");
    return aside && getComputedStyle(aside).display !== "none" ? aside : null;
  },

  /// Shows beside the lines the picture of the page at the middle of the screen (the last
  /// page start above it, else the page the first stretch starts in). Pictures are asked for
  /// once the reader stops on a page, not for each page scrolled past.
  follow() {
    const paged = this.section && this.section.querySelector(".paged");
    const aside = paged && this.pageView(paged);
    if (!aside) return;
    const scroller = this.scroller();
    const inWindow = scroller === document.scrollingElement;
    const middle = (inWindow ? 0 : scroller.getBoundingClientRect().top) + (inWindow ? window.innerHeight : scroller.clientHeight) / 2;
    const starts = paged.querySelectorAll("li.page-start");
    let low = 0, high = starts.length;
    while (low < high) {
      const m = (low + high) >> 1;
      if (starts[m].getBoundingClientRect().top <= middle) low = m + 1; else high = m;
    }
    const first = paged.querySelector("ol.lines");
    const page = low > 0 ? starts[low - 1].dataset.page : first && first.dataset.page;
    if (!page || paged.dataset.shown === page) return;
    const img = aside.querySelector("img"), shownBefore = paged.dataset.shown;
    paged.dataset.shown = page;
    aside.querySelector("figcaption").textContent = `Page ${page} of ${paged.dataset.pages}`;
    clearTimeout(this.pictureTimer);
    const load = () => {
      img.onload = () => { if (window.docentPageShown === undefined) window.docentPageShown = performance.now(); };
      img.alt = "Page " + page;
      img.src = paged.dataset.pictures + page;
    };
    if (shownBefore === undefined) load(); else this.pictureTimer = setTimeout(load, 120);
  },

  parameters(extra) {
    const p = new URLSearchParams({ q: this.section.dataset.q, ...extra });
    return p.toString();
  },

  scroller() {
    const pane = this.section.closest("#preview");
    return pane && getComputedStyle(pane).overflowY !== "visible" && pane.scrollHeight > pane.clientHeight
      ? pane : (this.section.closest("main.single") || document.scrollingElement);
  },

  /// The k-th match (wrapping round), loading its stretch when it is not on the page.
  async go(k, block = "center") {
    await this.counted;
    const count = this.matches.length;
    if (!count || !this.section) return;
    k = ((k % count) + count) % count;
    const line = this.matches[k];
    const nth = k - this.matches.indexOf(line);
    let item = this.section.querySelector("#L" + line);
    if (!item) {
      await this.reload(Math.max(1, line - 20));
      item = this.section.querySelector("#L" + line);
    }
    if (!item) return;
    this.at = k;
    for (const mark of this.section.querySelectorAll("mark.current")) mark.classList.remove("current");
    const mark = item.querySelectorAll("mark")[nth] || item;
    mark.classList.add("current");
    this.show(mark, block);
    const at = this.section.querySelector(".at");
    if (at) at.textContent = `${k + 1} of ${count}`;
  },

  /// The current match marked again (after the stretch it is in was loaded anew).
  markCurrent() {
    const line = this.matches[this.at];
    const item = line && this.section && this.section.querySelector("#L" + line);
    if (!item) return;
    const mark = item.querySelectorAll("mark")[this.at - this.matches.indexOf(line)];
    if (mark) mark.classList.add("current");
  },

  /// The reader again from line `from` (a match not loaded, or the file changed); `also`
  /// runs in the same moment the new reader is placed.
  async reload(from, also) {
    const id = this.section.dataset.id;
    const response = await fetch(`/api/reader/${id}?` + this.parameters({ from }));
    const html = await response.text();
    if (also) also();
    if (!html || !this.section) return;
    const holder = document.createElement("div");
    holder.innerHTML = html;
    const fresh = holder.firstElementChild;
    this.section.replaceWith(fresh);
    const at = this.at;
    this.start(fresh, false);
    this.at = Math.min(at, Math.max(this.matches.length - 1, 0));
  },

  /// Loads the next (or previous) stretch when the last (or first) line comes into view.
  observe() {
    if (this.observer) this.observer.disconnect();
    this.observer = new IntersectionObserver((entries) => {
      for (const entry of entries) if (entry.isIntersecting) this.more(entry.target.dataset.edge);
    }, { rootMargin: "600px 0px" });
    const lists = this.section.querySelectorAll("ol.lines");
    if (!lists.length) return;
    const first = lists[0].firstElementChild, last = lists[lists.length - 1].lastElementChild;
    if (first && Number(lists[0].dataset.from) > 1) { first.dataset.edge = "before"; this.observer.observe(first); }
    if (last && Number(lists[lists.length - 1].dataset.to) < Number(this.section.dataset.lines)) {
      last.dataset.edge = "after";
      this.observer.observe(last);
    }
  },

  async more(edge) {
    if (this.loading || !this.section) return;
    const lists = this.section.querySelectorAll("ol.lines");
    const section = this.section;
    const first = lists[0], last = lists[lists.length - 1];
    const count = 300;
    const from = edge === "after" ? Number(last.dataset.to) + 1 : Math.max(1, Number(first.dataset.from) - count);
    const to = edge === "after" ? from + count - 1 : Number(first.dataset.from) - 1;
    if (to < from) return;
    this.loading = true;
    try {
      const response = await fetch(`/api/lines/${section.dataset.id}?` + this.parameters({ from, count: to - from + 1 }));
      const html = await response.text();
      if (section !== this.section || !html) return;
      const holder = document.createElement("div");
      holder.innerHTML = html;
      const list = holder.firstElementChild;
      if (edge === "after") last.after(list);
      else {
        // Put in above what is being read without moving it.
        const scroller = this.scroller(), before = scroller.scrollHeight;
        first.before(list);
        scroller.scrollTop += scroller.scrollHeight - before;
      }
      this.observe();
      colours.paint(section);
    } finally {
      this.loading = false;
    }
  },

  /// After the file changed: the same stretch again, where the reader was.
  async refresh(also) {
    if (!this.section) { if (also) also(); return; }
    const scroller = this.scroller();
    const lines = Array.from(this.section.querySelectorAll("ol.lines li"));
    const top = scroller === document.scrollingElement ? 0 : scroller.getBoundingClientRect().top;
    const visible = lines.find((item) => item.getBoundingClientRect().bottom > top) || lines[0];
    if (!visible) { if (also) also(); return; }
    const offset = visible.getBoundingClientRect().top;
    const line = Number(visible.value);
    await this.reload(Math.max(1, line), also);
    const again = this.section && this.section.querySelector("#L" + line);
    if (again) scroller.scrollTop += again.getBoundingClientRect().top - offset;
    this.markCurrent();
  },
};

// The picture beside a PDF's lines follows the reading, whichever scrolls (the window or the preview pane).
let following = false;
document.addEventListener("scroll", () => {
  if (following || !reader.section) return;
  following = true;
  requestAnimationFrame(() => { following = false; reader.follow(); });
}, { capture: true, passive: true });

const preview = {
  events: null,
  id: null,

  async open(id) {
    this.id = id;
    const pane = $("#preview");
    pane.setAttribute("aria-busy", "true");
    loading.start();
    // Opened at the query's first match (the query as the results were made for it).
    const q = $("#q") ? $("#q").value : "";
    const response = await fetch("/api/preview/" + id + (q ? "?" + new URLSearchParams({ q }) : ""));
    const html = await response.text();
    if (this.id !== id) return;
    loading.stop();
    pane.innerHTML = html;
    pane.removeAttribute("aria-busy");
    document.body.classList.add("previewing");
    reader.start($("#reader"));
    this.follow(id);
  },

  /// The preview again each time the file changes on disk.
  follow(id) {
    if (this.events) this.events.close();
    this.events = new EventSource("/events/preview/" + id);
    this.events.addEventListener("preview", (event) => {
      if (this.id !== id && this.id !== null) return;
      const article = $("#preview article.doc");
      if (article && $("#reader")) {
        // The document's part again; the reader reloads where it is being read.
        const holder = document.createElement("div");
        holder.innerHTML = event.data;
        const fresh = holder.querySelector("article.doc");
        // The file as it was (the stream's first event): nothing to do.
        if (fresh && fresh.dataset.version === article.dataset.version) return;
        // Both at once, once the reader's text is in hand: the page never shows one version's
        // facts over the other's text.
        reader.refresh(() => article.replaceWith(fresh));
      } else $("#preview").innerHTML = event.data;
    });
  },

  close() {
    if (this.events) this.events.close();
    this.events = null;
    this.id = null;
    document.body.classList.remove("previewing");
  },
};

/// Open and Show in folder: posted from the page without leaving it.
document.addEventListener("submit", async (event) => {
  const form = event.target.closest(".actions form");
  if (!form) return;
  event.preventDefault();
  const button = form.querySelector("button");
  const label = button.textContent;
  const response = await fetch(form.action, { method: "POST" });
  button.textContent = response.ok ? "Opened" : "Could not open";
  setTimeout(() => { button.textContent = label; }, 1500);
});

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
    reader.start($("#reader"));
    document.addEventListener("keydown", (event) => {
      if (event.target.closest("input, textarea, select")) return;
      if (event.key === "n") reader.go(reader.at + 1);
      else if (event.key === "N") reader.go(reader.at - 1);
    });
    preview.follow(single.dataset.follow);
    return;
  }
  if (!$("#q")) return;

  $("#q").addEventListener("input", () => search.run());
  $("#group").addEventListener("change", () => search.run());
  $("#root").addEventListener("change", () => search.run());
  if ($("#sort")) $("#sort").addEventListener("change", () => search.run());
  if ($("#results a.more")) moreObserver.observe($("#results a.more"));
  $("#search").addEventListener("submit", (event) => { event.preventDefault(); search.run(); });
  search.follow();

  $("#results").addEventListener("click", (event) => {
    if (event.target.closest("a.more")) { event.preventDefault(); search.more(); return; }
    const item = event.target.closest("#hits li");
    if (!item || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    list.choose(item);
    preview.open(item.dataset.id);
  });

  document.addEventListener("keydown", (event) => {
    const inField = event.target === $("#q");
    if (!inField && document.body.classList.contains("previewing") && (event.key === "n" || event.key === "N")) {
      reader.go(reader.at + (event.key === "n" ? 1 : -1));
      return;
    }
    const previewing = document.body.classList.contains("previewing");
    // The preview follows the selection: always where there is room beside the list, and on
    // a narrow screen once it is open.
    const follows = previewing || window.matchMedia("(min-width: 801px)").matches;
    if (event.key === "/" && !inField) { event.preventDefault(); $("#q").focus(); $("#q").select(); }
    else if (event.key === "ArrowDown") {
      event.preventDefault();
      list.move(inField && !list.chosen() ? 0 : 1);
      if (follows && list.chosen()) preview.open(list.chosen().dataset.id);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      if (list.items().indexOf(list.chosen()) <= 0) { list.choose(null); $("#q").focus(); } else {
        list.move(-1);
        if (follows && list.chosen()) preview.open(list.chosen().dataset.id);
      }
    } else if (event.key === "Enter" && !inField) {
      // Enter opens the document's own page, at the query's first match.
      const item = list.chosen();
      if (item) {
        event.preventDefault();
        const q = $("#q").value;
        location.href = "/doc/" + item.dataset.id + (q ? "?" + new URLSearchParams({ q }) : "");
      }
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
