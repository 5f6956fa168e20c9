"""Shared helpers of the sweep/report integration tests."""
import os
import shutil
import subprocess
import sys
import tempfile


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def require(tool, package):
    path = shutil.which(tool)
    if not path:
        fail(f"'{tool}' not found: install the Debian package {package}")
    return path


def run(cmd, **kw):
    print("$ " + " ".join(map(str, cmd)), flush=True)
    r = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, **kw)
    if r.returncode != 0:
        fail(f"exit {r.returncode}: {' '.join(map(str, cmd))}\n{r.stdout}\n{r.stderr}")
    return r


CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync",
                  "--virtual-time-budget=5000"]


def render_dom(html_path):
    """The DOM of `html_path` after headless Chromium loaded and laid it out."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if not chromium:
        fail("'chromium' not found: install the Debian package chromium")
    with tempfile.TemporaryDirectory(prefix="systole-chromium-") as profile:
        r = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                            "--dump-dom", "file://" + os.path.abspath(html_path)],
                           capture_output=True, text=True, timeout=120)
    if r.returncode != 0 or "<body" not in r.stdout:
        fail(f"chromium exit {r.returncode}: {r.stderr[-2000:]}")
    return r.stdout


def body_attr(dom, name):
    import re
    m = re.search(r'<body[^>]*\s' + name + r'="(\d+)"', dom)
    if not m:
        fail(f"the page's script did not run: no {name} on <body>")
    return int(m.group(1))
