"""A small driver of headless Chromium over the DevTools protocol, for the
report's browser tests, its screenshots and its load-time benchmark.

Debian's chromium, started headless with a fresh profile and every
background connection off (a closed network refuses them, and a page must
not need them), and python3-websocket to speak to it. A page is opened at
a given width; everything that goes wrong while it loads is collected: a
console error, an uncaught exception, a resource that failed to load, a
request that left the site's own files, a dialog (alert) a script opened.

  with Browser() as b:
      page = b.open("file:///.../index.html", width=1280)
      page.problems   # [] when the page loaded clean
      page.evaluate("document.title")
"""
import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
import urllib.request

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
    "--remote-debugging-port=0",
]


def chromium():
    """The chromium executable, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def websocket_module():
    try:
        import websocket  # Debian's python3-websocket
        return websocket
    except ImportError:
        return None


class BrowserError(Exception):
    pass


class Page:
    """One tab, its events and what went wrong in it."""

    def __init__(self, browser, ws_url):
        ws = websocket_module()
        self.ws = ws.create_connection(ws_url, timeout=120)
        self.next_id = 0
        self.problems = []
        self.requests = {}
        self.loaded = False
        self.dialogs = []
        for domain in ("Runtime", "Log", "Network", "Page"):
            self.call(domain + ".enable")

    def _event(self, msg):
        method, p = msg.get("method"), msg.get("params", {})
        if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            self.problems.append("console %s: %s" % (p["type"], text))
        elif method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            self.problems.append("exception: %s" % d.get("exception", {}).get("description", d.get("text")))
        elif method == "Log.entryAdded":
            e = p.get("entry", {})
            if e.get("level") in ("error", "warning"):
                self.problems.append("log %s (%s): %s %s" % (e.get("level"), e.get("source"), e.get("text"),
                                                            e.get("url", "")))
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            self.requests[p.get("requestId")] = url
            if not url.startswith("file://") and not url.startswith("data:"):
                self.problems.append("a request left the site: %s" % url)
        elif method == "Network.loadingFailed":
            self.problems.append("failed to load %s: %s" % (self.requests.get(p.get("requestId"), "?"),
                                                            p.get("errorText")))
        elif method == "Page.javascriptDialogOpening":
            self.dialogs.append(p.get("message"))
            self.problems.append("a script opened a dialog: %s" % p.get("message"))
            self._send("Page.handleJavaScriptDialog", {"accept": True})
        elif method == "Page.loadEventFired":
            self.loaded = True

    def _send(self, method, params):
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        return self.next_id

    def call(self, method, **params):
        want = self._send(method, params)
        while True:
            msg = json.loads(self.ws.recv())
            if msg.get("id") == want:
                if "error" in msg:
                    raise BrowserError("%s: %s" % (method, msg["error"]))
                return msg.get("result", {})
            self._event(msg)

    def wait_loaded(self, timeout=60):
        end = time.time() + timeout
        while not self.loaded:
            if time.time() > end:
                raise BrowserError("the page did not finish loading in %d s" % timeout)
            self.ws.settimeout(max(0.1, end - time.time()))
            self._event(json.loads(self.ws.recv()))
        self.ws.settimeout(120)

    def settle(self, seconds=0.5):
        """Takes the events that arrive within `seconds` (late errors, lazy pictures)."""
        end = time.time() + seconds
        self.ws.settimeout(0.1)
        while time.time() < end:
            try:
                self._event(json.loads(self.ws.recv()))
            except Exception:  # a timeout: nothing more yet
                pass
        self.ws.settimeout(120)

    def load_pictures(self):
        """Lazy pictures loaded now (a screenshot does not scroll to them)."""
        self.evaluate("Promise.all(Array.from(document.images, function (i) { i.loading = 'eager'; "
                      "return i.complete ? 0 : new Promise(function (ok) { i.onload = i.onerror = ok; }); }))")

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in r:
            raise BrowserError("evaluating %s: %s" % (expression[:80], r["exceptionDetails"]))
        return r.get("result", {}).get("value")

    def screenshot(self, path, top=0, height=None):
        """The page (or `height` pixels of it from `top`), as PNG."""
        width = self.evaluate("document.documentElement.scrollWidth")
        whole = self.evaluate("Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
        height = min(whole - top, height or whole, 16000)
        shot = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=True,
                         clip={"x": 0, "y": top, "width": width, "height": height, "scale": 1})
        with open(path, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
        return whole

    def close(self):
        self.ws.close()


class Browser:
    def __init__(self, timeout=90):
        exe = chromium()
        if exe is None:
            raise BrowserError("chromium is not installed")
        self.profile = tempfile.mkdtemp(prefix="alloclab-chromium-")
        self.proc = subprocess.Popen([exe] + CHROMIUM_FLAGS + ["--user-data-dir=" + self.profile, "about:blank"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        port_file = os.path.join(self.profile, "DevToolsActivePort")
        end = time.time() + timeout
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if self.proc.poll() is not None or time.time() > end:
                self.close()
                raise BrowserError("chromium did not start")
            time.sleep(0.05)
        self.port = int(open(port_file).read().split()[0])

    def open(self, url, width=1280, height=900, timeout=60):
        """A new tab of that size, at url, loaded."""
        req = urllib.request.Request("http://127.0.0.1:%d/json/new?about:blank" % self.port, method="PUT")
        target = json.load(urllib.request.urlopen(req, timeout=30))
        page = Page(self, target["webSocketDebuggerUrl"])
        page.target = target["id"]
        page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=width < 600)
        page.started = time.time()
        page.call("Page.navigate", url=url)
        page.wait_loaded(timeout)
        return page

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
