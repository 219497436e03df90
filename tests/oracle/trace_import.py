#!/usr/bin/env python3
"""Import-time truth: record what CPython really runs while importing one module.

    trace_import.py --mode normal|bare --root DIR [--root DIR...]
                    --first-party DIR [--first-party DIR...] --out FILE.jsonl MODULE

This process is the fresh interpreter for one (module, entry mode) import, exactly
like one import of `cyclefix verify` (src/verify.cpp): normal runs
`importlib.import_module(MODULE)`; bare first creates every ancestor package
without running its __init__ (PathFinder.find_spec + module_from_spec), then
imports MODULE. Nothing first-party is imported before tracing starts.

Each record is one JSON line, written with os.write as it happens (a crash keeps
everything before it). File names are absolute, symlinks resolved.
  {"kind":"module","file"}        a first-party module's <module> code starts
  {"kind":"body","file","qualname","line","class_body","module_file",
   "caller","entry"}              a first-party code object runs for the first time;
                                  module_file = the nearest first-party <module>
                                  frame below it (the import-time code that caused
                                  it), caller = the frame that called it, entry =
                                  the call made by that <module> frame
  {"kind":"import","file","line","module","fromlist","level","via","in_function",
   "in_class_body","module_file"} an import executed by first-party code
  {"kind":"loaded","files"}       first-party modules in sys.modules at the end
  {"kind":"end","outcome":"ok"|"error","error_type","message"}
Python < 3.12 traces with sys.setprofile/threading.setprofile ("call" events),
3.12+ with sys.monitoring (PY_START, disabled per code object after its first hit).
"""
import builtins
import importlib
import importlib.machinery
import importlib.util
import json
import opcode
import os
import sys
import threading

CO_OPTIMIZED = 0x1
CO_NEWLOCALS = 0x2
IMPORT_NAME = opcode.opmap["IMPORT_NAME"]


def parse_args(argv):
    mode, out, module = "normal", None, None
    roots, first_party = [], []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("--mode", "--root", "--first-party", "--out"):
            if i + 1 >= len(argv):
                raise SystemExit("trace_import: %s needs a value" % a)
            v = argv[i + 1]
            i += 2
            if a == "--mode":
                mode = v
            elif a == "--root":
                roots.append(os.path.abspath(v))
            elif a == "--first-party":
                first_party.append(os.path.abspath(v))
            else:
                out = v
        elif a.startswith("-"):
            raise SystemExit("trace_import: unknown option %s" % a)
        else:
            if module is not None:
                raise SystemExit("trace_import: one MODULE only")
            module = a
            i += 1
    if module is None or out is None or not roots or mode not in ("normal", "bare"):
        raise SystemExit(__doc__)
    return mode, roots, first_party or list(roots), out, module


class Recorder:
    def __init__(self, fd, first_party):
        self.fd = fd
        self.dirs = [os.path.realpath(d).rstrip(os.sep) + os.sep for d in first_party]
        self.file_cache = {}  # co_filename -> absolute real path, or None if not first-party
        self.seen = {}  # id(code) -> code (kept alive so ids are not reused)

    def write(self, record):
        data = (json.dumps(record) + "\n").encode("utf-8", "surrogatepass")
        while data:
            data = data[os.write(self.fd, data):]

    def first_party(self, filename):
        """The real absolute path of a first-party file, else None."""
        try:
            return self.file_cache[filename]
        except KeyError:
            pass
        path = None
        if filename and not filename.startswith("<"):
            real = os.path.realpath(filename)
            if any(real.startswith(d) for d in self.dirs):
                path = real
        self.file_cache[filename] = path
        return path

    def is_module_code(self, code):
        return code.co_name == "<module>"

    def module_frame(self, frame):
        """(nearest first-party <module> frame below frame, the frame it called)."""
        callee = frame
        f = frame.f_back
        while f is not None:
            code = f.f_code
            if code.co_name == "<module>" and self.first_party(code.co_filename):
                return f, callee
            callee = f
            f = f.f_back
        return None, None

    def describe(self, frame):
        code = frame.f_code
        return {"file": self.first_party(code.co_filename) or code.co_filename,
                "line": frame.f_lineno,
                "qualname": getattr(code, "co_qualname", code.co_name),
                "class_body": code.co_name != "<module>"
                and not (code.co_flags & (CO_NEWLOCALS | CO_OPTIMIZED))}

    def on_start(self, code, frame):
        """A code object starts running; frame is its frame (or None)."""
        key = id(code)
        if key in self.seen:
            return
        self.seen[key] = code
        path = self.first_party(code.co_filename)
        if path is None:
            return
        if code.co_name == "<module>":
            self.write({"kind": "module", "file": path})
            return
        class_body = not (code.co_flags & (CO_NEWLOCALS | CO_OPTIMIZED))
        module_file = caller = entry = None
        if frame is not None:
            mod, callee = self.module_frame(frame)
            if mod is not None:
                module_file = self.first_party(mod.f_code.co_filename)
                entry = {"file": module_file, "line": mod.f_lineno,
                         "callee": getattr(callee.f_code, "co_qualname", callee.f_code.co_name),
                         "callee_file": self.first_party(callee.f_code.co_filename)
                         or callee.f_code.co_filename}
            if frame.f_back is not None:
                caller = self.describe(frame.f_back)
        self.write({"kind": "body", "file": path,
                    "qualname": getattr(code, "co_qualname", code.co_name),
                    "line": code.co_firstlineno, "class_body": class_body,
                    "module_file": module_file, "caller": caller, "entry": entry})

    def on_import(self, frame, name, fromlist, level, via, package=None):
        if frame is None:
            return
        code = frame.f_code
        path = self.first_party(code.co_filename)
        if path is None:
            return
        if via == "__import__":
            try:
                if code.co_code[frame.f_lasti] == IMPORT_NAME:
                    via = "statement"
            except (IndexError, TypeError):
                pass
        in_function = None
        in_class_body = False
        if code.co_name != "<module>":
            in_function = getattr(code, "co_qualname", code.co_name)
            in_class_body = not (code.co_flags & (CO_NEWLOCALS | CO_OPTIMIZED))
        mod, _ = (frame, None) if code.co_name == "<module>" else self.module_frame(frame)
        try:
            fl = [str(x) for x in fromlist] if fromlist else []
        except TypeError:
            fl = ["<unprintable>"]
        resolved = None
        try:
            if level and package:
                resolved = importlib.util.resolve_name("." * level + name, package)
            elif not level:
                resolved = str(name)
        except (ImportError, ValueError, TypeError):
            pass
        self.write({"kind": "import", "file": path, "line": frame.f_lineno,
                    "module": str(name), "resolved": resolved, "fromlist": fl, "level": level,
                    "via": via,
                    "in_function": in_function, "in_class_body": in_class_body,
                    "module_file": self.first_party(mod.f_code.co_filename) if mod else None})


def install_tracer(rec):
    """Starts tracing code objects; returns a function that stops it."""
    if sys.version_info >= (3, 12):
        mon = sys.monitoring
        tool = None
        for candidate in (mon.PROFILER_ID, 5, 4, 3, mon.OPTIMIZER_ID, mon.DEBUGGER_ID):
            if mon.get_tool(candidate) is None:
                mon.use_tool_id(candidate, "cyclefix-trace-import")
                tool = candidate
                break
        if tool is None:
            raise RuntimeError("no free sys.monitoring tool id")
        disable = mon.DISABLE
        getframe = sys._getframe

        def py_start(code, offset):
            # The callback runs as if called from the starting frame.
            try:
                rec.on_start(code, getframe(1))
            except Exception:
                pass  # never let the tracer change what the import does
            return disable

        mon.register_callback(tool, mon.events.PY_START, py_start)
        mon.set_events(tool, mon.events.PY_START)

        def stop():
            mon.set_events(tool, 0)
            mon.register_callback(tool, mon.events.PY_START, None)
            mon.free_tool_id(tool)
        return stop

    seen = rec.seen

    def profile(frame, event, arg):
        if event == "call" and id(frame.f_code) not in seen:
            try:
                rec.on_start(frame.f_code, frame)
            except Exception:
                pass  # an exception here would unset the profiler and reach the import

    threading.setprofile(profile)
    sys.setprofile(profile)

    def stop():
        sys.setprofile(None)
        threading.setprofile(None)
    return stop


def install_import_hooks(rec):
    original_import = builtins.__import__
    original_import_module = importlib.import_module
    getframe = sys._getframe

    def traced_import(name, globals=None, locals=None, fromlist=(), level=0):
        try:
            package = None
            if level and isinstance(globals, dict):
                package = globals.get("__package__")
                if package is None and globals.get("__spec__") is not None:
                    package = globals["__spec__"].parent
            rec.on_import(getframe(1), name, fromlist, level, "__import__", package)
        except Exception:
            pass
        return original_import(name, globals, locals, fromlist, level)

    def traced_import_module(name, package=None):
        try:
            level = len(name) - len(name.lstrip(".")) if isinstance(name, str) else 0
            rec.on_import(getframe(1), name[level:] if level else name, (), level,
                          "import_module", package)
        except Exception:
            pass
        return original_import_module(name, package)

    traced_import_module.__doc__ = original_import_module.__doc__
    builtins.__import__ = traced_import
    importlib.import_module = traced_import_module

    def restore():
        builtins.__import__ = original_import
        importlib.import_module = original_import_module
    return restore, original_import_module


def create_bare_ancestors(module):
    """Ancestor packages present in sys.modules, their __init__.py not run."""
    parts = module.split(".")
    parent = None
    for i in range(1, len(parts)):
        name = ".".join(parts[:i])
        pkg = sys.modules.get(name)
        if pkg is None:
            path = None if parent is None else parent.__path__
            spec = importlib.machinery.PathFinder.find_spec(name, path)
            if spec is None:
                raise ModuleNotFoundError("No module named %r" % name, name=name)
            pkg = importlib.util.module_from_spec(spec)
            sys.modules[name] = pkg
            if parent is not None:
                setattr(parent, parts[i - 1], pkg)
        if not hasattr(pkg, "__path__"):
            raise ModuleNotFoundError(
                "No module named %r; %r is not a package" % (module, name), name=module)
        parent = pkg


def error_fields(e):
    t = type(e)
    error_type = t.__qualname__
    if t.__module__ not in ("builtins", "__main__"):
        error_type = "%s.%s" % (t.__module__, t.__qualname__)
    try:
        message = str(e)
    except BaseException:
        message = "<unprintable %s>" % t.__qualname__
    if len(message) > 4000:
        message = message[:4000] + "..."
    return error_type, message


def main():
    mode, roots, first_party, out, module = parse_args(sys.argv[1:])
    fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    # A script's own directory is sys.path[0]; the roots take its place.
    if sys.path and not getattr(sys.flags, "safe_path", False):
        del sys.path[0]
    sys.path[0:0] = roots
    sys.argv = [sys.argv[0]]

    rec = Recorder(fd, first_party)
    restore_imports, import_module = install_import_hooks(rec)
    stop = install_tracer(rec)
    end = {"kind": "end", "outcome": "ok", "error_type": None, "message": None}
    try:
        if mode == "bare":
            create_bare_ancestors(module)
        import_module(module)
    except BaseException as e:
        end["outcome"] = "error"
        end["error_type"], end["message"] = error_fields(e)
    try:
        stop()
    except BaseException:
        pass
    restore_imports()
    try:
        loaded = set()
        for m in list(sys.modules.values()):
            f = getattr(m, "__file__", None)
            if isinstance(f, str) and rec.first_party(f):
                loaded.add(rec.first_party(f))
        rec.write({"kind": "loaded", "files": sorted(loaded)})
    except BaseException:
        pass
    rec.write(end)
    os._exit(0)  # no atexit handlers, no waiting for threads the module started


if __name__ == "__main__":
    main()
