#!/usr/bin/python3
"""A long-lived bridge to one warm LibreOffice instance.

Started by src/engines/libreoffice.ts (one bridge per pooled instance). It launches soffice with its
own profile, connects over a UNO pipe, primes the instance with one throwaway conversion, prints one
JSON line {"ready": true, ...} on stdout, then takes JSON-line jobs on stdin and answers one JSON
line per job:

  job:    {"id": 1, "input": "/abs/in.docx", "output": "/abs/out.pdf", "format": "pdf",
           "filter": null, "filterOptions": null, "filterData": {...}, "inputFilter": null,
           "inputFilterOptions": null, "page": {"width": 21000, "height": 29700, "landscape": false,
           "margins": [top, right, bottom, left]}}   (page lengths in 1/100 mm)
  answer: {"id": 1, "ok": true, "kind": "writer", "ms": 120}
          {"id": 1, "ok": false, "code": "unreadable" | "export_failed" | "error", "message": "..."}

Documents are loaded hidden, read-only, with macros never executed and links never updated, and
without an interaction handler, so a password prompt fails the load instead of waiting.
When soffice exits, the bridge exits (code 3); when stdin closes, it kills soffice and exits 0.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import uno  # python3-uno
from com.sun.star.beans import PropertyValue  # type: ignore
from com.sun.star.connection import NoConnectException  # type: ignore

OUT_LOCK = threading.Lock()


def emit(obj):
    line = json.dumps(obj)
    with OUT_LOCK:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def to_url(path):
    return uno.systemPathToFileUrl(os.path.abspath(path))


EXPORT_FILTERS = {
    "writer": {
        "pdf": ("writer_pdf_Export", None),
        "docx": ("MS Word 2007 XML", None),
        "doc": ("MS Word 97", None),
        "odt": ("writer8", None),
        "rtf": ("Rich Text Format", None),
        "txt": ("Text (encoded)", "UTF8,LF"),
        "html": ("HTML (StarWriter)", None),
        "epub": ("EPUB", None),
    },
    "calc": {
        "pdf": ("calc_pdf_Export", None),
        "xlsx": ("Calc MS Excel 2007 XML", None),
        "xls": ("MS Excel 97", None),
        "ods": ("calc8", None),
        "csv": ("Text - txt - csv (StarCalc)", "44,34,76,1"),
        "html": ("HTML (StarCalc)", None),
    },
    "impress": {
        "pdf": ("impress_pdf_Export", None),
        "pptx": ("Impress MS PowerPoint 2007 XML", None),
        "ppt": ("MS PowerPoint 97", None),
        "odp": ("impress8", None),
        "html": ("impress_html_Export", None),
    },
    "draw": {
        "pdf": ("draw_pdf_Export", None),
        "odg": ("draw8", None),
        "png": ("draw_png_Export", None),
    },
}


def document_kind(doc):
    if doc.supportsService("com.sun.star.text.GenericTextDocument"):
        return "writer"
    if doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
        return "calc"
    if doc.supportsService("com.sun.star.presentation.PresentationDocument"):
        return "impress"
    if doc.supportsService("com.sun.star.drawing.DrawingDocument"):
        return "draw"
    return "unknown"


def filter_data_any(data):
    values = []
    for key, value in data.items():
        values.append(prop(key, value))
    return uno.Any("[]com.sun.star.beans.PropertyValue", tuple(values))


def apply_page(doc, kind, page):
    """Sets every page style's size, orientation and margins (Writer and Calc)."""
    if kind not in ("writer", "calc"):
        return
    styles = doc.getStyleFamilies().getByName("PageStyles")
    for name in styles.getElementNames():
        style = styles.getByName(name)
        if page.get("width") and page.get("height"):
            style.setPropertyValue("IsLandscape", bool(page.get("landscape")))
            style.setPropertyValue("Width", int(page["width"]))
            style.setPropertyValue("Height", int(page["height"]))
        margins = page.get("margins")
        if margins:
            top, right, bottom, left = (int(m) for m in margins)
            style.setPropertyValue("TopMargin", top)
            style.setPropertyValue("RightMargin", right)
            style.setPropertyValue("BottomMargin", bottom)
            style.setPropertyValue("LeftMargin", left)
            if kind == "writer":
                # Headers and footers sit inside the margins; keep them from adding space.
                for p in ("HeaderBodyDistance", "FooterBodyDistance"):
                    try:
                        style.setPropertyValue(p, 0)
                    except Exception:
                        pass


class Bridge:
    def __init__(self, soffice, profile, pipe):
        self.pipe = pipe
        self.profile = profile
        args = [
            soffice,
            "--headless",
            "--invisible",
            "--nologo",
            "--norestore",
            "--nodefault",
            "--nolockcheck",
            "--nofirststartwizard",
            "-env:UserInstallation=" + to_url(profile),
            "--accept=pipe,name=%s;urp;StarOffice.ComponentContext" % pipe,
        ]
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=sys.stderr,
            preexec_fn=_die_with_parent,
        )
        self.desktop = None
        self.exiting = False

    def connect(self, timeout):
        local = uno.getComponentContext()
        resolver = local.ServiceManager.createInstanceWithContext(
            "com.sun.star.bridge.UnoUrlResolver", local
        )
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("soffice exited during start (code %s)" % self.proc.returncode)
            try:
                ctx = resolver.resolve(
                    "uno:pipe,name=%s;urp;StarOffice.ComponentContext" % self.pipe
                )
                smgr = ctx.ServiceManager
                self.desktop = smgr.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
                return
            except NoConnectException:
                if time.monotonic() > deadline:
                    raise RuntimeError("soffice did not accept a UNO connection in time")
                time.sleep(0.05)

    def prime(self):
        """One throwaway docx-to-pdf conversion before the instance takes jobs.

        A fresh soffice loads the Writer module and the OOXML and PDF filter libraries on its first
        conversion, which costs several times a warm one (about 0.4 s against 0.05 s on an idle
        2-core machine, far more on a busy one). Paid here, it is part of the start, not of the
        first caller's job and its time limit, after every start, crash, timeout and recycle.
        """
        folder = os.path.join(self.profile, "prime")
        os.makedirs(folder, exist_ok=True)
        source = os.path.join(folder, "prime.docx")
        try:
            doc = self.desktop.loadComponentFromURL("private:factory/swriter", "_blank", 0, (prop("Hidden", True),))
            try:
                doc.getText().setString("warm")
                store = (prop("FilterName", "MS Word 2007 XML"), prop("Overwrite", True))
                uno.invoke(doc, "storeToURL", (to_url(source), store))
            finally:
                doc.close(True)
            answer = self.convert({"input": source, "output": os.path.join(folder, "prime.pdf"), "format": "pdf"})
            if not answer.get("ok"):
                sys.stderr.write("libreoffice-bridge: priming conversion failed: %s\n" % answer.get("message"))
        finally:
            shutil.rmtree(folder, ignore_errors=True)

    def watch(self):
        code = self.proc.wait()
        if not self.exiting:
            sys.stderr.write("libreoffice-bridge: soffice exited with code %s\n" % code)
            sys.stderr.flush()
            os._exit(3)

    def stop(self):
        self.exiting = True
        try:
            if self.desktop is not None:
                self.desktop.terminate()
        except Exception:
            pass
        try:
            self.proc.wait(timeout=3)
        except Exception:
            try:
                os.killpg(os.getpgid(0), signal.SIGKILL)
            except Exception:
                self.proc.kill()

    def convert(self, job):
        started = time.monotonic()
        load = [
            prop("Hidden", True),
            prop("ReadOnly", True),
            prop("MacroExecutionMode", 0),  # NEVER_EXECUTE
            prop("UpdateDocMode", 0),  # NO_UPDATE
            prop("Silent", True),
        ]
        if job.get("inputFilter"):
            load.append(prop("FilterName", job["inputFilter"]))
        if job.get("inputFilterOptions"):
            load.append(prop("FilterOptions", job["inputFilterOptions"]))
        if job.get("password") is not None:
            load.append(prop("Password", job["password"]))
        try:
            doc = self.desktop.loadComponentFromURL(to_url(job["input"]), "_blank", 0, tuple(load))
        except Exception as e:  # IllegalArgumentException, IOException: the file is at fault
            if is_disposed(e):
                raise
            return {"ok": False, "code": "unreadable", "message": describe(e)}
        if doc is None:
            return {"ok": False, "code": "unreadable", "message": "LibreOffice could not load the document"}
        try:
            kind = document_kind(doc)
            filt = job.get("filter")
            options = job.get("filterOptions")
            if not filt:
                fmt = job.get("format")
                pair = EXPORT_FILTERS.get(kind, {}).get(fmt)
                if pair is None:
                    return {
                        "ok": False,
                        "code": "unsupported",
                        "message": "a %s document cannot be exported as %s" % (kind, fmt),
                    }
                filt = pair[0]
                if options is None:
                    options = pair[1]
            if job.get("page"):
                apply_page(doc, kind, job["page"])
            store = [prop("FilterName", filt), prop("Overwrite", True)]
            if options:
                store.append(prop("FilterOptions", options))
            if job.get("outputPassword"):
                store.append(prop("Password", job["outputPassword"]))
            if job.get("filterData"):
                store.append(prop("FilterData", filter_data_any(job["filterData"])))
            try:
                uno.invoke(doc, "storeToURL", (to_url(job["output"]), tuple(store)))
            except Exception as e:
                if is_disposed(e):
                    raise
                return {"ok": False, "code": "export_failed", "message": describe(e)}
            return {"ok": True, "kind": kind, "filter": filt, "ms": int((time.monotonic() - started) * 1000)}
        finally:
            try:
                doc.close(True)
            except Exception:
                try:
                    doc.dispose()
                except Exception:
                    pass


def describe(e):
    msg = getattr(e, "Message", None) or str(e)
    return "%s: %s" % (type(e).__name__, msg.strip()[:500])


def is_disposed(e):
    name = type(e).__name__
    text = str(e)
    return name in ("DisposedException",) or "Binary URP bridge" in text or "disposed" in text.lower()


def owned_pipes(root_pid):
    """The UNO/IPC socket files soffice listens on (left in /tmp when it is killed)."""
    pids = {root_pid}
    try:
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open("/proc/%s/stat" % entry) as f:
                        stat = f.read()
                    ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
                    if ppid in pids or ppid == root_pid:
                        pids.add(int(entry))
                except (OSError, ValueError):
                    pass
        inodes = set()
        for pid in pids:
            try:
                for fd in os.listdir("/proc/%d/fd" % pid):
                    target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
                    if target.startswith("socket:["):
                        inodes.add(target[8:-1])
            except OSError:
                pass
        paths = []
        with open("/proc/%d/net/unix" % root_pid) as f:
            next(f)
            for line in f:
                parts = line.split()
                if len(parts) >= 8 and parts[6] in inodes and parts[7].startswith("/tmp/OSL_PIPE_"):
                    paths.append(parts[7])
        return sorted(set(paths))
    except Exception:
        return []


def _die_with_parent():
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass


def main():
    import argparse

    parser = argparse.ArgumentParser()
    parser.add_argument("--soffice", default="soffice")
    parser.add_argument("--profile", required=True)
    parser.add_argument("--pipe", required=True)
    parser.add_argument("--start-timeout", type=float, default=60)
    args = parser.parse_args()

    bridge = Bridge(args.soffice, args.profile, args.pipe)
    try:
        bridge.connect(args.start_timeout)
    except Exception as e:
        emit({"ready": False, "message": str(e)})
        bridge.stop()
        return 2
    threading.Thread(target=bridge.watch, daemon=True).start()
    try:
        bridge.prime()
    except Exception as e:
        # A dead instance is no instance; any other failure only costs the first job its warmth.
        if is_disposed(e):
            emit({"ready": False, "message": "soffice failed while priming: %s" % describe(e)})
            bridge.stop()
            return 2
        sys.stderr.write("libreoffice-bridge: priming failed: %s\n" % describe(e))
    emit({"ready": True, "pid": bridge.proc.pid, "pipes": owned_pipes(bridge.proc.pid)})

    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            job = json.loads(line)
        except ValueError:
            emit({"id": None, "ok": False, "code": "error", "message": "bad job line"})
            continue
        try:
            answer = bridge.convert(job)
        except Exception as e:
            answer = {"ok": False, "code": "crashed" if is_disposed(e) else "error", "message": describe(e)}
        answer["id"] = job.get("id")
        emit(answer)
        if answer.get("code") == "crashed":
            break
    bridge.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
