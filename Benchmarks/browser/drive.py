#!/usr/bin/python3
"""Drives `docent serve` in Debian's headless Chromium through chromium-driver (Selenium).

    drive.py test  URL ROOT ARTIFACTS OPENED  the viewer as a user meets it; exits 1 on the first
                                        failure (OPENED: where the test's opener writes what it opens)
    drive.py bench URL ROOT QUERIES...  keystroke-to-results and disk-to-preview latencies, as JSON
    drive.py reader URL QUERY ID,ID...  the reader's first screen of each row, opened at its match
    drive.py pages URL QUERY,... ID,...  a long PDF opened at the page of its first match

URL is the address `docent serve` printed (with its token). ROOT is a watched directory the
script may write in (the test's own root; the benchmark's scratch root beside the corpus).
"""
import json, os, sys, time, urllib.parse
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,900",
                     "--disable-gpu", "--no-first-run", "--password-store=basic"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def wait(driver, condition, what, seconds=15):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.02).until(lambda d: condition(d))
    except TimeoutException:
        raise AssertionError("timed out waiting for " + what)


def check(condition, what):
    if not condition:
        raise AssertionError(what)


def text(driver, selector):
    # Read in the page, in one step: the list is replaced as results arrive.
    return driver.execute_script("const e = document.querySelector(arguments[0]); return e ? e.innerText : ''", selector)


def click(driver, selector):
    driver.execute_script("document.querySelector(arguments[0]).click()", selector)


def no_alert(driver):
    try:
        driver.switch_to.alert
        return False
    except NoAlertPresentException:
        return True


def press(driver, key):
    # To whatever has the focus when the key arrives: the list may have been replaced meanwhile.
    ActionChains(driver).send_keys(key).perform()


def search_and_open(driver, field, query, name, what):
    """Types `query` afresh, waits for `name` among the hits, opens the first hit and waits
    for its picture to load."""
    field.clear()
    type_slowly(field, query, pause=0.02)
    wait(driver, lambda d: name in text(d, "#hits"), "the hit " + name)
    click(driver, "#hits li a")
    wait(driver, lambda d: name in text(d, "#preview .path") and d.execute_script(
        "const i = document.querySelector('#preview img.picture'); return i && i.complete && i.naturalWidth > 0"), what)


def type_slowly(field, words, pause=0.12):
    for character in words:
        field.send_keys(character)
        time.sleep(pause)


def write(path, content):
    with open(path, "w") as f:
        f.write(content)


def read(path):
    try:
        with open(path) as f:
            return f.read()
    except FileNotFoundError:
        return ""


def fresh_search(driver, field, query):
    """Clears the field and types `query` (a short pause a keystroke)."""
    field.clear()
    type_slowly(field, query, pause=0.02)


# The preview's own words, its "Why this type" details left out.
PEOPLES_WORDS = """const c = document.querySelector('#preview').cloneNode(true);
    c.querySelectorAll('details').forEach(d => d.remove()); return c.innerText;"""


def test(url, root, artifacts, opened):
    os.makedirs(artifacts, exist_ok=True)
    driver = browser()
    try:
        driver.get(url)
        wait(driver, lambda d: "token=" not in d.current_url, "the token to leave the address")
        driver.execute_script("window.docentMarker = 42")  # gone if the page reloads
        field = driver.find_element(By.ID, "q")
        check(driver.switch_to.active_element == field, "the search field has the focus")
        type_slowly(field, "comets")
        wait(driver, lambda d: "notes.txt" in text(d, "#hits"), "a hit as the query is typed")
        check("q=comets" in driver.current_url, "the address carries the query")
        marks = driver.find_elements(By.CSS_SELECTOR, "#hits mark")
        check(any(m.text.lower() == "comets" for m in marks), "the match is marked in the snippet")
        driver.save_screenshot(os.path.join(artifacts, "search.png"))

        # Keyboard only: down to the hit, which the preview follows.
        field.send_keys(Keys.ARROW_DOWN)
        check("notes.txt" in text(driver, "#hits li[aria-selected=true]"), "ArrowDown chooses the first hit")
        wait(driver, lambda d: "first line about comets" in text(d, "#preview"), "the preview to follow the selection")
        check("Why this type" in text(driver, "#preview") or driver.find_elements(By.CSS_SELECTOR, "#preview details"), "the type's reason")

        # The file changes on disk: the preview changes in place.
        write(os.path.join(root, "notes.txt"), "first line about comets\nan edited line, live\n")
        wait(driver, lambda d: "an edited line, live" in text(d, "#preview"), "the preview to follow the file")

        # Open and Show in folder: posted from the page, they run the `opener:` setting on the
        # row's file and its folder; the page stays where it is.
        click(driver, "#preview .actions form[action^='/open/'] button")
        wait(driver, lambda d: os.path.join(root, "notes.txt") + "\n" in read(opened), "Open to run the opener on the file")
        click(driver, "#preview .actions form[action^='/reveal/'] button")
        wait(driver, lambda d: read(opened).endswith(root + "\n"), "Show in folder to run the opener on its folder")
        check(driver.execute_script("return window.docentMarker") == 42 and "notes.txt" in text(driver, "#preview .path"),
              "the page stayed as it was")
        raw = driver.execute_script("return document.querySelector('#preview .actions a[href^=\"/raw/\"]').href")
        check(raw.endswith(driver.execute_script("return '/raw/' + document.querySelector('#preview article').dataset.id")),
              "View the original links the file's bytes by id")

        # A file starts matching, then stops: the list follows, without a reload.
        write(os.path.join(root, "arrival.txt"), "comets arriving late\n")
        wait(driver, lambda d: "arrival.txt" in text(d, "#hits"), "a new match to appear")
        os.remove(os.path.join(root, "arrival.txt"))
        wait(driver, lambda d: "arrival.txt" not in text(d, "#hits"), "a removed match to leave")
        check(driver.execute_script("return window.docentMarker") == 42, "no reload happened")

        # The reader: a long source file opens at its first match, marked; n and N go through
        # the matches ("2 of 3"), loading the stretch that holds one; scrolling loads more lines.
        press(driver, Keys.ESCAPE)
        field.clear()
        type_slowly(field, "okapimemory", pause=0.02)
        wait(driver, lambda d: "reader.py" in text(d, "#hits"), "the long file's hit")
        field.send_keys(Keys.ENTER)
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#reader mark.current"), "the reader opened at the match")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#reader ol.lines.coloured #L119 .hljs-comment"), "Python in colour")
        check(driver.find_elements(By.CSS_SELECTOR, "#L119 mark.current"), "the match still marked over the colours")
        wait(driver, lambda d: text(d, "#reader .at") == "1 of 3", "the count")
        check(text(driver, "#reader .at") == "1 of 3", "the first of three matches")
        in_view = """const m = document.querySelector('#reader mark.current'), p = document.querySelector('#preview').getBoundingClientRect();
            const r = m.getBoundingClientRect(); return r.top >= p.top && r.bottom <= p.bottom;"""
        check(driver.execute_script(in_view), "the match is in view")
        check(driver.execute_script("return document.querySelector('#reader mark.current').closest('li').id") == "L119", "at line 119")
        driver.save_screenshot(os.path.join(artifacts, "reader.png"))
        words = driver.execute_script(PEOPLES_WORDS)
        check("Python" in text(driver, "#preview .facts"), "the type said in people's words: %r" % text(driver, "#preview .facts"))
        check("public." not in words and "Document" not in words, "no type identifier or Swift type outside the details")
        driver.find_element(By.TAG_NAME, "body").send_keys("n")
        wait(driver, lambda d: text(d, "#reader .at") == "2 of 3", "n to the next match")
        driver.find_element(By.TAG_NAME, "body").send_keys("n")
        wait(driver, lambda d: text(d, "#reader .at") == "3 of 3" and d.find_elements(By.CSS_SELECTOR, "#L900 mark.current"),
             "n to a match far below, its stretch loaded")
        check(driver.execute_script(in_view), "the far match is in view")
        driver.find_element(By.TAG_NAME, "body").send_keys("N")
        wait(driver, lambda d: text(d, "#reader .at") == "2 of 3", "N back")
        shown = driver.execute_script("return document.querySelectorAll('#reader ol.lines li').length")
        driver.execute_script("const p = document.querySelector('#preview'); p.scrollTop = p.scrollHeight;")
        wait(driver, lambda d: d.execute_script("return document.querySelectorAll('#reader ol.lines li').length") > shown,
             "more lines as the reader scrolls")

        # Results to go through: 25 matches, 20 shown, the rest on scrolling; with the preview
        # open, the arrow keys move it with the selection; / returns to the field.
        press(driver, Keys.ESCAPE)
        field.clear()
        type_slowly(field, "pebblestone", pause=0.02)
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hits li")) == 20 and "25 matches" in text(d, "#problem"),
             "20 of 25 matches")
        driver.execute_script("const r = document.querySelector('#results'); r.scrollTop = r.scrollHeight;")
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hits li")) == 25, "the other 5 on scrolling")
        # Sorted by name: the address says so, and the list is in the names' order.
        Select(driver.find_element(By.ID, "sort")).select_by_value("name")
        names = lambda d: d.execute_script("return Array.from(document.querySelectorAll('#hits li .path')).map(e => e.innerText.split('/').pop())")
        wait(driver, lambda d: "sort=name" in d.current_url and "pebble1.txt" in text(d, "#hits li"), "the name order")
        shown = [n for n in (names(driver) or []) if n.startswith("pebble")]
        natural = sorted(shown, key=lambda n: int("".join(c for c in n if c.isdigit())))
        check(shown in (sorted(shown), natural), "hits in the order of their names: %s" % shown[:6])
        Select(driver.find_element(By.ID, "sort")).select_by_value("")
        wait(driver, lambda d: "sort=" not in d.current_url, "back to the best match")
        # A phrase being typed searches what is typed so far, without an error at each keystroke.
        fresh_search(driver, field, '"pebblestone number')
        typed = lambda d: urllib.parse.parse_qs(urllib.parse.urlsplit(d.current_url).query).get("q") == ['"pebblestone number']
        wait(driver, lambda d: "pebble" in text(d, "#hits") and typed(d), "the phrase typed so far to match")
        check("Column" not in text(driver, "#problem") and not driver.find_elements(By.CSS_SELECTOR, "#problem mark.at"),
              "no error for an unclosed quote")
        # On a slow answer, a loading bar after 150 ms.
        driver.execute_cdp_cmd("Network.enable", {})
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 800, "downloadThroughput": -1, "uploadThroughput": -1})
        fresh_search(driver, field, "pebblestone number")
        wait(driver, lambda d: "loading" in (d.find_element(By.TAG_NAME, "body").get_attribute("class") or ""), "the loading bar", seconds=5)
        driver.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        wait(driver, lambda d: "loading" not in (d.find_element(By.TAG_NAME, "body").get_attribute("class") or ""), "the loading bar to go")
        fresh_search(driver, field, "pebblestone")
        wait(driver, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#hits li")) == 20, "the pebbles again")
        field.send_keys(Keys.ENTER)
        wait(driver, lambda d: "pebble" in text(d, "#preview .path"), "a pebble's preview")
        first = text(driver, "#preview .path")
        press(driver, Keys.ARROW_DOWN)
        wait(driver, lambda d: text(d, "#preview .path") not in ("", first), "the preview to follow the selection down")
        press(driver, "/")
        check(driver.switch_to.active_element == field, "/ returns to the search field")
        # Enter on a chosen hit opens the document's own page, at the match; Back returns.
        field.send_keys(Keys.ARROW_DOWN)
        press(driver, Keys.ENTER)
        wait(driver, lambda d: "/doc/" in d.current_url and "q=pebblestone" in d.current_url, "Enter to open the document's page")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#reader mark.current"), "the page opened at the match")
        driver.back()
        wait(driver, lambda d: d.find_elements(By.ID, "q"), "back to the search")
        field = driver.find_element(By.ID, "q")
        driver.execute_script("window.docentMarker = 42")

        # Esc closes the preview, Esc again returns to the field.
        press(driver, Keys.ESCAPE)
        check("previewing" not in (driver.find_element(By.TAG_NAME, "body").get_attribute("class") or ""), "Esc closes the preview")
        press(driver, Keys.ESCAPE)
        check(driver.switch_to.active_element == field, "Esc returns to the search field")

        # A syntax error is shown at its column, inline.
        field.clear()
        type_slowly(field, "comets OR", pause=0.02)
        wait(driver, lambda d: "Column" in text(d, "#problem"), "the query error at its column")
        check(driver.find_elements(By.CSS_SELECTOR, "#problem mark.at"), "the column marked")

        # A PDF: its first page as a picture.
        search_and_open(driver, field, "name:guide.pdf", "guide.pdf", "the PDF's first page to load")
        driver.save_screenshot(os.path.join(artifacts, "pdf-preview.png"))
        # The list's thumbnail is a request of its own, which may finish after the preview's picture.
        wait(driver, lambda d: d.execute_script(
            "const t = Array.from(document.querySelectorAll('#hits img.thumb'));"
            " return t.length > 0 && t.every(i => i.complete && i.naturalWidth > 0)"), "the PDF's thumbnail in the list")

        # A 40-page PDF whose word is on its last page: the reader opens there, the match marked,
        # the picture of page 40 beside it; scrolling up, the picture follows the page read.
        field.clear()
        type_slowly(field, "zebrafinch", pause=0.02)
        wait(driver, lambda d: "manual.pdf" in text(d, "#hits"), "the long PDF's hit")
        field.send_keys(Keys.ENTER)
        wait(driver, lambda d: d.execute_script(
            "const i = document.querySelector('#reader .page-view img'); return i && i.complete && i.naturalWidth > 0 && i.src.endsWith('page=40')"),
            "the picture of the match's page beside it")
        check(driver.execute_script(in_view), "the PDF's match is in view")
        check(text(driver, "#reader .page-view figcaption") == "Page 40 of 40", "the page said")
        driver.save_screenshot(os.path.join(artifacts, "pdf-reader.png"))
        # Reading upwards (each look scrolls further, the stretches above loading on the way).
        wait(driver, lambda d: d.execute_script("document.querySelector('#preview').scrollTop -= 1500") or
             text(d, "#reader .page-view figcaption") == "Page 39 of 40", "the picture to follow the page read")

        # HTML with its structure, without its navigation.
        fresh_search(driver, field, "quaymaster")
        wait(driver, lambda d: "harbour.html" in text(d, "#hits"), "the HTML page's hit")
        check("navigation bar" not in text(driver, "#hits"), "no navigation in the snippet")
        driver.execute_script("Array.from(document.querySelectorAll('#hits li a')).find(a => a.closest('li').innerText.includes('harbour.html')).click()")
        wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "#preview .body h2, #preview .body h3"), "the page's heading in the preview")
        check(len(driver.find_elements(By.CSS_SELECTOR, "#preview .body li")) == 2, "the list's two items")
        check(driver.find_elements(By.CSS_SELECTOR, "#preview .body table th"), "the table with its header")
        check("navigation bar" not in text(driver, "#preview"), "no navigation in the preview")
        driver.save_screenshot(os.path.join(artifacts, "structure.png"))
        # A gzipped man page: a manual page, found by type:man, its prototypes one a line.
        fresh_search(driver, field, "type:man unfrob")
        wait(driver, lambda d: "frob.3.gz" in text(d, "#hits"), "the gzipped man page by type:man")
        click(driver, "#hits li a")
        wait(driver, lambda d: "frob.3.gz" in text(d, "#preview .path"), "the man page's preview")
        facts = text(driver, "#preview .facts")
        check("compressed" in facts and "gzip" not in facts.split(",")[0].lower(), "a man page, compressed: %r" % facts)
        lines = [l.strip() for l in driver.execute_script(PEOPLES_WORDS).split("\n")]
        check("int frob(int fd, const char *name);" in lines and "int unfrob(int fd);" in lines,
              "the SYNOPSIS's prototypes one a line: %s" % [l for l in lines if "frob(" in l])

        # 420 pixels wide: nothing spills sideways, and a new query shows its results even
        # with a preview open.
        driver.set_window_size(420, 900)
        fresh_search(driver, field, "pebblestone")
        wait(driver, lambda d: "pebble" in text(d, "#hits"), "the pebbles, narrow")
        click(driver, "#hits li a")
        wait(driver, lambda d: "pebble" in text(d, "#preview .path"), "a preview, narrow")
        fresh_search(driver, field, "comets")
        wait(driver, lambda d: "notes.txt" in text(d, "#hits"), "the new query's hit, narrow")
        visible = """const a = document.querySelector('#hits li a'); if (!a) return false; const r = a.getBoundingClientRect();
            const e = document.elementFromPoint(Math.min(r.left + 5, innerWidth - 1), r.top + r.height / 2);
            return r.width > 0 && r.top < innerHeight && !!e && !!e.closest('#hits');"""
        wait(driver, lambda d: d.execute_script(visible), "the results in view, not under the preview", seconds=5)
        check(driver.execute_script("return document.documentElement.scrollWidth <= innerWidth"), "nothing wider than 420 pixels")
        check(driver.execute_script("const h = document.querySelector('header.bar').getBoundingClientRect(); return h.right <= innerWidth"),
              "the header within the screen")
        driver.save_screenshot(os.path.join(artifacts, "narrow.png"))
        driver.set_window_size(1400, 900)

        # Hostile names and an SVG with a script: shown as text and as an image, nothing runs.
        field.clear()
        type_slowly(field, "hostile", pause=0.02)
        wait(driver, lambda d: "<img src=x onerror=alert(1)>.txt" in text(d, "#hits"), "a hostile name shown as text")
        check(no_alert(driver), "no script from a file name ran")
        search_and_open(driver, field, "name:*.svg", "drawing.svg", "the SVG shown as an image")
        check(no_alert(driver), "no script from the SVG ran in the page")
        source = driver.execute_script("return document.querySelector('#preview img.picture').src")
        driver.get(source)  # the SVG opened by itself: its own policy still forbids its script
        time.sleep(0.5)
        check(no_alert(driver), "no script from the SVG ran when opened directly")

        # The status page, live.
        driver.get(url.split("?")[0] + "status")
        wait(driver, lambda d: "Pending changes" in text(d, "#status-page") or "Watcher" in text(d, "#status-page"), "the status page")
        before = text(driver, "#status-page")
        write(os.path.join(root, "status-probe.txt"), "one more file\n")
        wait(driver, lambda d: text(d, "#status-page") != before, "the status page to follow the index")

        # No page of ours broke its own policy.
        violations = [e for e in driver.get_log("browser") if "violates the following Content Security Policy" in e.get("message", "")
                      and "/raw/" not in e.get("message", "")]
        check(not violations, "no Content-Security-Policy violation: %s" % violations)
        print(json.dumps({"ok": True, "keystrokes": driver.execute_script("return window.docentTimings || []")}))
    finally:
        driver.quit()


def percentile(values, p):
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def bench(url, root, queries):
    driver = browser()
    try:
        driver.get(url)
        wait(driver, lambda d: d.find_elements(By.ID, "q"), "the page")
        field = driver.find_element(By.ID, "q")
        # Keystrokes at a fast typist's pace; each one's time runs from its input event to
        # its results placed in the page (fetch, search, HTML, DOM), measured in the browser.
        for query in queries:
            field.clear()
            type_slowly(field, query, pause=0.15)
            time.sleep(0.3)
        keystrokes = driver.execute_script("return window.docentTimings || []")
        server = driver.execute_script("return window.docentServerTimings || []")
        # Disk to preview: a file in the scratch root, edited; the time from the write to the
        # preview's change in the page (a MutationObserver stamps it with Date.now(), the same
        # wall clock as Python's time.time(); performance.timeOrigin drifts from it by ms).
        probe = os.path.join(root, "latency-probe.txt")
        write(probe, "latencyprobe version 0\n")
        field.clear()
        type_slowly(field, "latencyprobe", pause=0.01)
        wait(driver, lambda d: "latency-probe.txt" in text(d, "#hits"), "the probe's hit", seconds=60)
        # The probe's own hit: other files in the scratch root may mention the word too.
        driver.execute_script("""
            Array.from(document.querySelectorAll('#hits li a')).find((a) => a.textContent.includes('latency-probe.txt')).click()""")
        wait(driver, lambda d: "version 0" in text(d, "#preview"), "the probe's preview")
        driver.execute_script("""
            window.docentChanges = [];
            new MutationObserver(() => window.docentChanges.push(Date.now()))
              .observe(document.querySelector('#preview'), {childList: true, subtree: true, characterData: true});""")
        changes = []
        for version in range(1, 31):
            seen = len(driver.execute_script("return window.docentChanges"))
            started = time.time() * 1000
            write(probe, "latencyprobe version %d\n" % version)
            wait(driver, lambda d: "version %d" % version in text(d, "#preview"), "the preview's version %d" % version)
            stamps = driver.execute_script("return window.docentChanges")
            changes.append(stamps[seen] - started if len(stamps) > seen else None)
            time.sleep(0.2)
        os.remove(probe)
        changes = [c for c in changes if c is not None]
        print(json.dumps({
            "keystrokes": len(keystrokes), "keystrokeP50": percentile(keystrokes, 50), "keystrokeP99": percentile(keystrokes, 99),
            "keystrokeMax": max(keystrokes) if keystrokes else None,
            "serverP50": percentile(server, 50), "serverP99": percentile(server, 99),
            "changes": len(changes), "changeP50": percentile(changes, 50), "changeP99": percentile(changes, 99)}))
    finally:
        driver.quit()


def reader(url, query, ids):
    """The reader's first screen: /doc/ID?q=QUERY of each row ID (each a large file not opened
    yet by this server), timed in the page from the navigation's start to the reader shown at
    its first match; the time the count arrived; then each opened once more."""
    driver = browser()
    try:
        driver.get(url)
        wait(driver, lambda d: "token=" not in d.current_url, "the token to leave the address")
        base = url.split("?")[0]
        cold, warm, counted = [], [], []
        for row in ids:
            for kind in (cold, warm):
                driver.get(base + "doc/" + row + "?q=" + query)
                wait(driver, lambda d: d.execute_script("return window.docentReaderShown !== undefined"), "the reader", seconds=60)
                kind.append(driver.execute_script("return window.docentReaderShown"))
                # The count follows the first screen; the next page waits for it, as a reader would.
                wait(driver, lambda d: " of " in text(d, "#reader .at"), "the count", seconds=60)
                if kind is cold: counted.append(driver.execute_script("return performance.now()"))
        marks = driver.execute_script("return document.querySelector('#reader .at').textContent")
        print(json.dumps({"files": len(ids), "firstOpenP50": percentile(cold, 50), "firstOpenMax": max(cold),
                          "countedByP50": percentile(counted, 50),
                          "againP50": percentile(warm, 50), "againMax": max(warm), "matches": marks}))
    finally:
        driver.quit()


def pages(url, queries, ids):
    """A PDF opened at its match's page: /doc/ID?q=QUERY for each row ID and each query (each
    a long PDF the server has not opened since it started, the browser's cache off), timed in
    the page from the navigation's start to the picture of the first match's page drawn
    (`docentPageShown`), with its marked match in view; a screenshot of the last."""
    driver = browser()
    try:
        driver.execute_cdp_cmd("Network.setCacheDisabled", {"cacheDisabled": True})
        driver.get(url)
        wait(driver, lambda d: "token=" not in d.current_url, "the token to leave the address")
        base = url.split("?")[0]
        opened, shown = [], []
        for row in ids:
            for query in queries:
                driver.get(base + "doc/" + row + "?q=" + query)
                wait(driver, lambda d: d.execute_script("return window.docentPageShown !== undefined"), "the page's picture", seconds=60)
                opened.append(driver.execute_script("return window.docentPageShown"))
                # The match in view, and the picture beside it (or, narrow, at its page's start) of its page.
                where = driver.execute_script("""
                    const mark = document.querySelector('#reader mark.current'), r = mark.getBoundingClientRect();
                    let start = mark.closest('li'); while (start && !start.classList.contains('page-start')) start = start.previousElementSibling;
                    const page = start ? start.dataset.page : mark.closest('ol').dataset.page;
                    const aside = document.querySelector('#reader .page-view');
                    const figure = getComputedStyle(aside).display !== 'none' ? aside : start;
                    const img = figure.querySelector('img'), box = img.getBoundingClientRect();
                    return [r.top >= 0 && r.bottom <= innerHeight, box.top < innerHeight && box.bottom > 0 && img.complete && img.naturalWidth > 0,
                            img.src.endsWith('page=' + page), figure.querySelector('figcaption').textContent];""")
                check(where[0] and where[1] and where[2], "the match and its page's picture in view (%s)" % where)
                shown.append(where[3])
        driver.save_screenshot(os.environ.get("SCREENSHOT", "/tmp/docent-pdf-reader.png"))
        print(json.dumps({"opens": len(opened), "pageShownP50": percentile(opened, 50), "pageShownMax": max(opened), "times": opened,
                          "pages": shown}))
    finally:
        driver.quit()


if __name__ == "__main__":
    mode = sys.argv[1]
    try:
        if mode == "test":
            test(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
        elif mode == "reader":  # drive.py reader URL QUERY ID,ID,...
            reader(sys.argv[2], sys.argv[3], sys.argv[4].split(","))
        elif mode == "pages":  # drive.py pages URL QUERY,QUERY,... ID,ID,...
            pages(sys.argv[2], sys.argv[3].split(","), sys.argv[4].split(","))
        else:
            bench(sys.argv[2], sys.argv[3], sys.argv[4:])
    except Exception as failure:  # the test shows what went wrong, whatever it was
        print(json.dumps({"ok": False, "failure": "%s: %s" % (type(failure).__name__, str(failure)[:4000])}))
        sys.exit(1)
