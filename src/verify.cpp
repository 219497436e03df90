#include "verify.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace cyclefix {

namespace fs = std::filesystem;

namespace {

// Run as `python -c CODE MODE MODULE ROOT...`. It imports nothing that start-up
// has not loaded already (no json: a first-party `json` package must not be
// the standard library's), and binds what it needs before the module runs.
// A fork server's zygote (kForkServerCode) runs it with `_cyclefix_warm` set in
// its globals: ("prepare",) sets up and imports the package, then returns
// instead of reporting; ("warm", MODULE) in a child forked from there imports
// MODULE with the set-up already done.
// The result goes to a private duplicate of the original stdout; the module's
// own output (fd 1 and 2) goes to /dev/null. It must not contain three single
// quotes in a row: the pytest file embeds it in r'''...'''.
constexpr std::string_view kChildCode = R"PY(import importlib, importlib.machinery, importlib.util, os, sys


def _cyclefix_json_str(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"' or ch == '\\':
            out.append('\\' + ch)
        elif 32 <= o < 127:
            out.append(ch)
        elif 0xD800 <= o < 0xE000:
            out.append('\\ufffd')  # a lone surrogate is not valid JSON
        elif o < 0x10000:
            out.append('\\u%04x' % o)
        else:
            o -= 0x10000
            out.append('\\u%04x\\u%04x' % (0xD800 + (o >> 10), 0xDC00 + (o & 0x3FF)))
    out.append('"')
    return "".join(out)


def _cyclefix_import_first(warm):
    if warm and warm[0] == "warm":  # forked where "prepare" left off: set up already
        mode, module, roots = "normal", warm[1], []
    else:
        mode, module, roots = sys.argv[1], sys.argv[2], sys.argv[3:]
    q, write, exit_now = _cyclefix_json_str, os.write, os._exit
    out = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    if not warm or warm[0] != "warm":
        if sys.path and not getattr(sys.flags, "safe_path", False):
            del sys.path[0]  # -c puts the current directory first
        sys.path[0:0] = roots
        sys.argv = [sys.argv[0]]
    result = ("ok", "", "")
    try:
        if mode == "bare":
            # Ancestor packages present, their __init__.py not run.
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
        elif mode not in ("normal", "lazy"):  # lazy: the interpreter runs with -X lazy_imports=all
            raise ValueError("unknown entry mode %r" % mode)
        importlib.import_module(module)
    except BaseException as e:
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
        circular = isinstance(e, (ImportError, AttributeError)) and (
            "partially initialized module" in message
            or "(most likely due to a circular import)" in message)
        result = ("circular" if circular else "other", error_type, message)
    if warm and warm[0] == "prepare":  # a fork server's zygote goes on from here
        globals()["_cyclefix_prepared"] = (result[0], out)
        return
    data = ('{"outcome": %s, "error_type": %s, "message": %s}\n' % tuple(q(x) for x in result)).encode("ascii")
    while data:
        data = data[write(out, data):]
    exit_now(0)  # no atexit handlers, no waiting for threads the module started


_cyclefix_import_first(globals().pop("_cyclefix_warm", None))
)PY";

// The fork server: `python -c CODE CHILD_CODE ROOT...` (one per worker). It
// imports nothing that start-up has not loaded (sys, os), says it is ready,
// then for each request "MODE\tMODULE\n" on fd 0 forks a child that undoes what
// the server itself added (sys.modules entries, __main__ names, sys.argv) and
// runs CHILD_CODE as `python -c CHILD_CODE MODE MODULE ROOT...` would, its
// fd 1 a pipe the server reads. The server answers on fd 1 "pid N\n" at once,
// then "done STATUS LENGTH\n" and the child's first output line (LENGTH bytes)
// once the child has exited. The exited child is reaped only at the next
// request, so its pid (and process group) cannot be reused while cyclefix may
// still kill it after a timeout.
//
// Warm packages: `import a.b.c.mod` in normal entry first imports `a`, then
// `a.b`, then `a.b.c`, in every fresh interpreter alike. So the server keeps
// zygotes along the package path of the module asked for: a clean child that
// runs CHILD_CODE's set-up and imports `a` exactly as a fresh interpreter
// would on its way to the module, a child of that one that imports `a.b`, and
// so on (modules come in name order, so each package is imported about once).
// A module's child is forked from the deepest zygote on its path, and its
// import goes on where a fresh interpreter's would. The server itself stays
// clean. A zygote serves only when its package imported without error and no
// thread runs (a thread does not survive fork); below one that does not,
// modules are forked from its parent. The answer "pid N W" carries W, the
// seconds the zygotes' imports took: a fresh interpreter spends them inside
// the module's time limit, so cyclefix takes them off it (except what was
// spent on this request, while cyclefix waited).
//
// The server talks to the top zygote only; requests for deeper ones are
// passed down: "run\tDEPTH\tMODULE", "zygote\tDEPTH\tPACKAGE" (answered
// "ready" or "cold") and "stop\tDEPTH" (the zygote at DEPTH ends its own).
constexpr std::string_view kForkServerCode = R"PY(_cyclefix_fresh_main = dict(globals())
import sys
_cyclefix_fresh_modules = set(sys.modules)
import os


def _cyclefix_serve(fresh_main, fresh_modules):
    child_code = compile(sys.argv[1], "<string>", "exec")
    roots = sys.argv[2:]
    main = sys.modules["__main__"].__dict__
    fork, read, write, close, dup2, exit_now = os.fork, os.read, os.write, os.close, os.dup2, os._exit
    null = os.open(os.devnull, os.O_RDWR)
    mine = []  # descriptors no child may keep: pipes between zygotes

    def send(fd, data):
        while data:
            data = data[write(fd, data):]

    def now():
        return os.times()[4]

    class Lines:
        def __init__(self, fd):
            self.fd, self.pending = fd, b""

        def line(self):
            while b"\n" not in self.pending:
                chunk = read(self.fd, 65536)
                if not chunk:
                    return None
                self.pending += chunk
            line, self.pending = self.pending.split(b"\n", 1)
            return line

        def exactly(self, n):
            while len(self.pending) < n:
                chunk = read(self.fd, 65536)
                if not chunk:
                    return None
                self.pending += chunk
            data, self.pending = self.pending[:n], self.pending[n:]
            return data

    def clean(mode, module):
        for name in list(sys.modules):
            if name not in fresh_modules:
                del sys.modules[name]
        sys.argv = ["-c", mode, module] + roots
        main.clear()
        main.update(fresh_main)

    def run_child(out, prepare):
        # A child that runs CHILD_CODE after prepare(), its fd 1 a pipe; its
        # pid goes to `out` at once ("pid N"), then its first output line and
        # exit status ("done ..."). Returns the pid, reaped by serve().
        r, w = os.pipe()
        pid = fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                dup2(null, 0)
                dup2(w, 1)
                for fd in [null, r, w] + mine:
                    close(fd)
                prepare()
                exec(child_code, main)
            finally:
                exit_now(70)
        close(w)
        try:
            os.setpgid(pid, pid)
        except OSError:
            pass
        send(out, b"pid %d\n" % pid)
        data = b""
        while b"\n" not in data:
            chunk = read(r, 65536)
            if not chunk:
                break
            data += chunk
        close(r)
        if b"\n" in data:
            data = data[:data.index(b"\n") + 1]
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        if info.si_code == os.CLD_EXITED:
            status = (info.si_status & 0xFF) << 8
        else:
            status = info.si_status | (0x80 if info.si_code == os.CLD_DUMPED else 0)
        send(out, b"done %d %d\n" % (status, len(data)) + data)
        return pid

    def serve(requests, handle):
        # Each request line to handle(), which returns the pid of the child it
        # ran (0: none). That child is reaped only when the next request comes,
        # so its pid (and process group) cannot be reused while cyclefix may
        # still kill it after a timeout.
        last = 0
        while True:
            line = requests.line()
            if last:
                os.waitpid(last, 0)
                last = 0
            if line is None:
                return
            last = handle(line)

    def ask(sub, request, out=None, extra=b""):
        # Passes a request to zygote `sub`; its answer goes to `out` (or is
        # returned), a child's pid line (with `extra`) as soon as it comes, so
        # that cyclefix can kill the child after a timeout. None when the
        # zygote is gone.
        send(sub["fd"], request + b"\n")
        if request.startswith(b"stop\t"):
            return b""
        lines = sub["lines"]
        answer = lines.line()
        if answer is None:
            return None
        answer += extra + b"\n"
        if request.startswith(b"run\t"):
            send(out, answer)
            done = lines.line()
            fields = done.split() if done is not None else []
            data = lines.exactly(int(fields[2])) if len(fields) == 3 and fields[2].isdigit() else None
            if data is None:
                return None
            answer = done + b"\n" + data
        if out is not None:
            send(out, answer)
        return answer

    def start_zygote(depth, prepare):
        # Forks a zygote that runs prepare(fd) (its import: the descriptor to
        # answer on, or None when it failed) and then serves; None when it is
        # cold.
        to_r, to_w = os.pipe()
        from_r, from_w = os.pipe()
        pid = fork()
        if pid == 0:
            try:
                for fd in [to_w, from_r] + mine:
                    close(fd)
                del mine[:]
                out = prepare(from_w)
                threading = sys.modules.get("threading")
                if out is None or (threading is not None and threading.active_count() > 1):
                    send(from_w if out is None else out, b"cold\n")
                else:
                    send(out, b"ready\n")
                    mine.extend([to_r, out])
                    zygote(depth, Lines(to_r), out)
            finally:
                exit_now(0)
        close(to_r)
        close(from_w)
        sub = {"pid": pid, "fd": to_w, "lines": Lines(from_r)}
        if sub["lines"].line() != b"ready":
            stop(sub)
            return None
        mine.extend([to_w, from_r])
        return sub

    def stop(sub):
        for fd in (sub["fd"], sub["lines"].fd):
            close(fd)
            if fd in mine:
                mine.remove(fd)
        os.waitpid(sub["pid"], 0)

    def zygote(depth, requests, out):
        # "run", "zygote" and "stop" for this zygote (their DEPTH is its own)
        # or passed on to its own zygote.
        sub = None

        def handle(line):
            nonlocal sub
            verb, at, arg = (line.split(b"\t", 2) + [b""])[:3]
            if int(at) > depth:
                if sub is None or ask(sub, line, out) is None:
                    exit_now(71)
            elif verb == b"run":
                module = arg.decode("utf-8", "surrogateescape")

                def warm():
                    main["_cyclefix_warm"] = ("warm", module)

                return run_child(out, warm)
            elif verb == b"zygote":
                if sub is not None:
                    stop(sub)
                package = arg.decode("utf-8", "surrogateescape")

                def enter(fd):
                    # The next package on the path, imported as a fresh
                    # interpreter's import of a module under it would.
                    try:
                        sys.modules["importlib"].import_module(package)
                    except BaseException:
                        return None
                    return fd

                sub = start_zygote(depth + 1, enter)
                send(out, b"cold\n" if sub is None else b"ready\n")
            elif verb == b"stop" and sub is not None:
                stop(sub)
                sub = None
            return 0

        serve(requests, handle)
        if sub is not None:
            stop(sub)

    def enter_top(top):
        # The top zygote: a clean child's set-up and `import top`, by CHILD_CODE.
        def enter(fd):
            clean("normal", top)
            dup2(null, 0)
            dup2(fd, 1)
            close(fd)
            main["_cyclefix_warm"] = ("prepare",)
            exec(child_code, main)
            outcome, result_fd = main.pop("_cyclefix_prepared")
            return result_fd if outcome == "ok" else None
        return enter

    # The server's zygotes: chain[i] imported the package path's first i+1
    # parts; only chain[0] is its own child. `cold`: the package whose zygote
    # did not start (nothing under it is tried again).
    state = {"top": None, "chain": [], "cold": None, "request": 0}

    def descend(package):
        chain = state["chain"]
        parts = package.split(".")
        names = [".".join(parts[:i + 1]) for i in range(len(parts))]
        keep = 0
        while keep < len(chain) and keep < len(names) and chain[keep]["name"] == names[keep]:
            keep += 1
        if keep < len(chain):
            if keep == 0:
                stop(state["top"])
                state["top"] = None
            else:
                ask(state["top"], b"stop\t%d" % (keep - 1))
            del chain[keep:]
        cold = state["cold"]
        if cold is not None and package != cold and not package.startswith(cold + "."):
            state["cold"] = None
        while len(chain) < len(names) and state["cold"] is None:
            name = names[len(chain)]
            began = now()
            if not chain:
                state["top"] = start_zygote(0, enter_top(name))
                ready = state["top"] is not None
            else:
                answer = ask(state["top"], b"zygote\t%d\t%s" % (len(chain) - 1, name.encode("utf-8", "surrogateescape")))
                if answer is None:
                    exit_now(71)  # cyclefix imports what is left in fresh interpreters
                ready = answer == b"ready\n"
            if not ready:
                state["cold"] = name
                break
            chain.append({"name": name, "seconds": now() - began, "request": state["request"]})

    def handle(line):
        state["request"] += 1
        mode, module = line.decode("utf-8", "surrogateescape").split("\t")
        if mode == "normal" and "." in module:
            descend(module.rsplit(".", 1)[0])
            chain = state["chain"]
            if chain:
                seconds = sum(z["seconds"] for z in chain if z["request"] != state["request"])
                request = b"run\t%d\t%s" % (len(chain) - 1, module.encode("utf-8", "surrogateescape"))
                if ask(state["top"], request, 1, b" %.3f" % seconds if seconds else b"") is None:
                    exit_now(71)
                return 0
        return run_child(1, lambda: clean(mode, module))

    send(1, b"cyclefix-fork-server ready\n")
    dup2(null, 2)
    serve(Lines(0), handle)
    if state["top"] is not None:
        stop(state["top"])


_cyclefix_serve(_cyclefix_fresh_main, _cyclefix_fresh_modules)
)PY";

std::string format_seconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

// Moves a descriptor above 2 so that dup2 onto 0-2 in the child never aliases it.
int raise_fd(int fd) {
  if (fd > 2) return fd;
  int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  ::close(fd);
  return moved;
}

bool make_pipe(int fds[2]) {
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  fds[0] = raise_fd(fds[0]);
  fds[1] = raise_fd(fds[1]);
  if (fds[0] < 0 || fds[1] < 0) {
    if (fds[0] >= 0) ::close(fds[0]);
    if (fds[1] >= 0) ::close(fds[1]);
    return false;
  }
  return true;
}

struct ChildRun {
  std::string spawn_error;  // non-empty: never ran
  bool timed_out = false;
  int wait_status = 0;
  std::string out;  // the child's stdout (the result line)
  std::string err;  // the tail of its stderr (interpreter start-up errors)
};

using Clock = std::chrono::steady_clock;

// Starts `python ARGS...` in a process group of its own (a timeout kills what
// it started too) with default signal handling, `in_fd` as its stdin (-1:
// /dev/null), `out_fd` and `err_fd` as stdout and stderr. An errno on failure.
int spawn_python(const std::string& python, const std::vector<std::string>& args, char* const* envp,
                 int in_fd, int out_fd, int err_fd, pid_t* pid) {
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(python.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in_fd < 0)
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  else
    posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
  posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_fd, 2);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD, SIGALRM, SIGUSR1, SIGUSR2})
    sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &empty);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                      POSIX_SPAWN_SETPGROUP);

  const bool search = python.find('/') == std::string::npos;
  int rc = search ? ::posix_spawnp(pid, python.c_str(), &actions, &attr, argv.data(), envp)
                  : ::posix_spawn(pid, python.c_str(), &actions, &attr, argv.data(), envp);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc;
}

ChildRun run_child(const std::string& python, const std::vector<std::string>& args,
                   char* const* envp, double timeout_s) {
  ChildRun run;
  int out_pipe[2], err_pipe[2];
  if (!make_pipe(out_pipe)) {
    run.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return run;
  }
  if (!make_pipe(err_pipe)) {
    run.spawn_error = std::string("pipe: ") + std::strerror(errno);
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return run;
  }

  pid_t pid = -1;
  int rc = spawn_python(python, args, envp, -1, out_pipe[1], err_pipe[1], &pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (rc != 0) {
    run.spawn_error = "cannot run '" + python + "': " + std::strerror(rc);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return run;
  }
  const auto start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));

  ::fcntl(out_pipe[0], F_SETFL, O_NONBLOCK);
  ::fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
  constexpr std::size_t kErrTail = 4096;
  char buf[8192];
  auto drain = [&](int fd, std::string& into, bool tail) -> bool {  // false at EOF
    for (;;) {
      ssize_t n = ::read(fd, buf, sizeof buf);
      if (n > 0) {
        into.append(buf, static_cast<std::size_t>(n));
        if (tail && into.size() > 2 * kErrTail) into.erase(0, into.size() - kErrTail);
        continue;
      }
      if (n == 0) return false;
      if (errno == EINTR) continue;
      return true;  // EAGAIN
    }
  };

  // Read until the result line is complete, its pipe closes, or time runs out.
  bool out_open = true, err_open = true;
  while (out_open && run.out.find('\n') == std::string::npos) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      run.timed_out = true;
      break;
    }
    pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_open ? err_pipe[0] : -1, POLLIN, 0}};
    int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    if (fds[0].revents) out_open = drain(out_pipe[0], run.out, false);
    if (err_open && fds[1].revents) err_open = drain(err_pipe[0], run.err, true);
  }

  // Reap it; it exits right after reporting, so this waits only on a stuck child.
  bool reaped = false;
  while (!run.timed_out) {
    pid_t w = ::waitpid(pid, &run.wait_status, WNOHANG);
    if (w == pid || (w < 0 && errno != EINTR)) {
      reaped = true;
      break;
    }
    if (Clock::now() >= deadline) {
      run.timed_out = run.out.find('\n') == std::string::npos;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  if (!reaped) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &run.wait_status, 0) < 0 && errno == EINTR) {
    }
  }
  if (err_open) drain(err_pipe[0], run.err, true);
  if (out_open) drain(out_pipe[0], run.out, false);
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (run.err.size() > kErrTail) run.err.erase(0, run.err.size() - kErrTail);
  return run;
}

// The interpreter behind `python`, asked once per process (and working
// directory and PATH, which pick what a name or a pyenv shim means): a wrapper
// such as a pyenv shim costs several shell starts per module otherwise.
std::string resolve_python(const std::string& python, char* const* envp, double timeout_s) {
  static std::mutex mu;
  static std::map<std::string, std::string> cache;
  std::error_code ec;
  const char* path_env = std::getenv("PATH");
  std::string key = python + '\0' + fs::current_path(ec).string() + '\0' + (path_env ? path_env : "");
  {
    std::lock_guard<std::mutex> lock(mu);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  std::string resolved = python;
  ChildRun probe = run_child(python, {"-c", "import sys; sys.stdout.write(sys.executable + '\\n')"}, envp,
                             std::max(timeout_s, 10.0));
  auto nl = probe.out.find('\n');
  if (probe.spawn_error.empty() && !probe.timed_out && nl != std::string::npos && probe.out[0] == '/' &&
      ::access(probe.out.substr(0, nl).c_str(), X_OK) == 0)
    resolved = probe.out.substr(0, nl);
  else if (!probe.spawn_error.empty())
    return resolved;  // not cached: the caller reports the spawn error per module
  std::lock_guard<std::mutex> lock(mu);
  cache.emplace(key, resolved);
  return resolved;
}

std::string trim(std::string s) {
  auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

enum class ReadStatus { Data, Eof, Timeout, Error };

// Waits until `fd` is readable or `deadline`, then appends what is there.
ReadStatus read_some(int fd, std::string& into, Clock::time_point deadline) {
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return ReadStatus::Timeout;
    pollfd p = {fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
    if (n < 0 && errno != EINTR) return ReadStatus::Error;
    if (n <= 0) continue;
    char buf[8192];
    ssize_t got = ::read(fd, buf, sizeof buf);
    if (got > 0) {
      into.append(buf, static_cast<std::size_t>(got));
      return ReadStatus::Data;
    }
    if (got == 0) return ReadStatus::Eof;
    if (errno != EINTR && errno != EAGAIN) return ReadStatus::Error;
  }
}

// One fork server (kForkServerCode) and the socket it reads requests from and
// answers on (its fd 0 and 1). Used by one worker thread.
class ForkServer {
 public:
  ForkServer() = default;
  ForkServer(const ForkServer&) = delete;
  ForkServer& operator=(const ForkServer&) = delete;
  ~ForkServer() { stop(false); }

  // False, with the reason, when it does not start or does not say it is ready.
  bool start(const std::string& python, const std::vector<std::string>& roots, char* const* envp,
             double timeout_s, std::string* why) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
      *why = std::string("socketpair: ") + std::strerror(errno);
      return false;
    }
    sv[0] = raise_fd(sv[0]);
    sv[1] = raise_fd(sv[1]);
    int err_pipe[2];
    if (sv[0] < 0 || sv[1] < 0 || !make_pipe(err_pipe)) {
      *why = std::string("pipe: ") + std::strerror(errno);
      if (sv[0] >= 0) ::close(sv[0]);
      if (sv[1] >= 0) ::close(sv[1]);
      return false;
    }
    std::vector<std::string> args = {"-c", std::string(kForkServerCode), std::string(kChildCode)};
    args.insert(args.end(), roots.begin(), roots.end());
    int rc = spawn_python(python, args, envp, sv[1], sv[1], err_pipe[1], &pid_);
    ::close(sv[1]);
    ::close(err_pipe[1]);
    sock_ = sv[0];
    if (rc != 0) {
      pid_ = -1;
      *why = "cannot run '" + python + "': " + std::strerror(rc);
      ::close(err_pipe[0]);
      stop(true);
      return false;
    }
    // Start-up output before the ready line (a noisy .pth file) is skipped.
    const std::string ready = "cyclefix-fork-server ready\n";
    const auto deadline = after(std::max(timeout_s, 10.0));
    ReadStatus st = ReadStatus::Data;
    while (buf_.find(ready) == std::string::npos && st == ReadStatus::Data) st = read_some(sock_, buf_, deadline);
    if (auto at = buf_.find(ready); at != std::string::npos) {
      buf_.erase(0, at + ready.size());
      ::close(err_pipe[0]);
      return true;
    }
    std::string err;
    ::fcntl(err_pipe[0], F_SETFL, O_NONBLOCK);
    if (st != ReadStatus::Timeout)  // it exited: its stderr is complete
      while (read_some(err_pipe[0], err, after(1)) == ReadStatus::Data && err.size() < 65536) {
      }
    ::close(err_pipe[0]);
    err = trim(err);
    if (auto last = err.rfind('\n'); last != std::string::npos) err.erase(0, last + 1);
    *why = st == ReadStatus::Timeout ? "it did not start within " + format_seconds(std::max(timeout_s, 10.0)) + " s"
                                     : "it exited at start-up" + (err.empty() ? std::string() : ": " + err);
    stop(true);
    return false;
  }

  bool alive() const { return pid_ > 0; }

  // Imports `module` first in a forked child. nullopt when the server stopped
  // before the child reported (the caller imports it again another way); the
  // server is then gone, and `why` says what happened.
  std::optional<ChildRun> run(const std::string& mode, const std::string& module, double timeout_s,
                              std::string* why) {
    const std::string request = mode + '\t' + module + '\n';
    for (std::size_t sent = 0; sent < request.size();) {
      ssize_t n = ::send(sock_, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return died("it stopped reading requests", why);
      sent += static_cast<std::size_t>(n);
    }
    auto deadline = after(timeout_s);
    // The server answers a request within moments unless it is stuck itself.
    constexpr double kGrace = 10;
    ChildRun run;
    pid_t child = -1;
    auto line = [&](Clock::time_point until, std::string* out) -> ReadStatus {
      for (;;) {
        if (auto nl = buf_.find('\n'); nl != std::string::npos) {
          *out = buf_.substr(0, nl);
          buf_.erase(0, nl + 1);
          return ReadStatus::Data;
        }
        ReadStatus st = read_some(sock_, buf_, until);
        if (st != ReadStatus::Data) return st;
      }
    };
    std::string text;
    double warm_s = 0;
    if (line(deadline + std::chrono::seconds(static_cast<int>(kGrace)), &text) != ReadStatus::Data ||
        std::sscanf(text.c_str(), "pid %d %lf", &child, &warm_s) < 1 || child <= 0)
      return died("it did not fork a child", why);
    // Forked from a zygote whose package import a fresh interpreter would
    // have spent part of its time limit on.
    deadline -= std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(warm_s, 0.0)));
    auto kill_child = [&] {
      ::kill(-child, SIGKILL);
      ::kill(child, SIGKILL);
    };
    ReadStatus st = line(deadline, &text);
    if (st == ReadStatus::Timeout) {
      kill_child();
      run.timed_out = true;
      st = line(after(kGrace), &text);
      if (st == ReadStatus::Timeout) {  // the child is dead; the server is stuck
        stop(true);
        *why = "it did not answer after a timed-out module was killed";
        return run;
      }
    }
    long long status = 0, length = -1;
    if (st != ReadStatus::Data || std::sscanf(text.c_str(), "done %lld %lld", &status, &length) != 2 ||
        length < 0) {
      kill_child();  // orphaned, or still running
      return died("it stopped while a module was being imported", why);
    }
    while (buf_.size() < static_cast<std::size_t>(length))
      if (read_some(sock_, buf_, after(kGrace)) != ReadStatus::Data)
        return died("it stopped while reporting a result", why);
    run.out = buf_.substr(0, static_cast<std::size_t>(length));
    buf_.erase(0, static_cast<std::size_t>(length));
    run.wait_status = static_cast<int>(status);
    // As with a process: a result line that came is a result, even if the kill was due.
    if (run.out.find('\n') != std::string::npos) run.timed_out = false;
    return run;
  }

 private:
  std::optional<ChildRun> died(std::string what, std::string* why) {
    stop(true);
    *why = std::move(what);
    return std::nullopt;
  }

  // Closing the socket ends the server; `force` kills it outright.
  void stop(bool force) {
    if (sock_ >= 0) ::close(sock_);
    sock_ = -1;
    if (pid_ <= 0) return;
    if (force) {
      ::kill(-pid_, SIGKILL);  // and its zygote, which stays in its process group
      ::kill(pid_, SIGKILL);
    }
    int status = 0;
    const auto deadline = after(5);
    for (;;) {
      pid_t w = ::waitpid(pid_, &status, WNOHANG);
      if (w == pid_ || (w < 0 && errno != EINTR)) break;
      if (Clock::now() >= deadline) {
        ::kill(pid_, SIGKILL);
        while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
        }
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int sock_ = -1;
  std::string buf_;  // read from the socket, not yet consumed
};

// The run's private bytecode cache: a fresh directory under the temporary
// directory, removed with everything in it when the run ends. A run killed by a
// signal cannot remove its own; the name holds the pid so that a later run
// removes those whose process is gone.
class PycachePrefix {
 public:
  PycachePrefix() {
    std::error_code ec;
    fs::path base = fs::temp_directory_path(ec);
    if (ec) base = "/tmp";
    remove_stale(base);
    std::string tmpl = (base / ("cyclefix-pycache-" + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (::mkdtemp(tmpl.data())) dir_ = tmpl;
    else error_ = "cannot create a bytecode cache directory under " + base.string() + ": " + std::strerror(errno);
  }
  ~PycachePrefix() {
    if (dir_.empty()) return;
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  PycachePrefix(const PycachePrefix&) = delete;
  PycachePrefix& operator=(const PycachePrefix&) = delete;
  const fs::path& dir() const { return dir_; }  // empty: not made (error())

  static void remove_stale(const fs::path& base) {
    std::error_code ec;
    const std::string prefix = "cyclefix-pycache-";
    for (fs::directory_iterator it(base, ec), end; !ec && it != end; it.increment(ec)) {
      const std::string name = it->path().filename().string();
      if (name.rfind(prefix, 0) != 0) continue;
      long pid = std::strtol(name.c_str() + prefix.size(), nullptr, 10);
      if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
      struct stat st;
      if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
      std::error_code ignored;
      fs::remove_all(it->path(), ignored);
    }
  }
  const std::string& error() const { return error_; }

 private:
  fs::path dir_;
  std::string error_;
};

VerifyResult classify(const std::string& module, const ChildRun& run, double timeout_s) {
  VerifyResult r;
  r.module = module;
  r.outcome = ImportOutcome::Other;
  if (!run.spawn_error.empty()) {
    r.error_type = "SpawnError";
    r.message = run.spawn_error;
    return r;
  }
  if (run.timed_out) {
    r.error_type = "Timeout";
    r.message = "timed out after " + format_seconds(timeout_s) + " s";
    return r;
  }
  auto nl = run.out.find('\n');
  if (nl != std::string::npos) {
    auto j = nlohmann::json::parse(run.out.substr(0, nl), nullptr, false);
    if (j.is_object() && j.contains("outcome") && j["outcome"].is_string()) {
      const std::string outcome = j["outcome"].get<std::string>();
      r.outcome = outcome == "ok"         ? ImportOutcome::Ok
                  : outcome == "circular" ? ImportOutcome::Circular
                                          : ImportOutcome::Other;
      if (j.contains("error_type") && j["error_type"].is_string()) r.error_type = j["error_type"];
      if (j.contains("message") && j["message"].is_string()) r.message = j["message"];
      return r;
    }
  }
  r.error_type = "InterpreterExit";
  if (WIFSIGNALED(run.wait_status)) {
    int sig = WTERMSIG(run.wait_status);
    const char* name = ::strsignal(sig);
    r.message = "interpreter killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  } else {
    r.message = "interpreter exited with status " + std::to_string(WEXITSTATUS(run.wait_status)) +
                " without reporting a result";
  }
  std::string err = trim(run.err);
  if (!err.empty()) {
    auto last = err.rfind('\n');
    r.message += ": " + (last == std::string::npos ? err : err.substr(last + 1));
  }
  return r;
}

// Python string literal (UTF-8 source); non-ASCII text passes through.
std::string py_str(std::string_view s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '\\': o += "\\\\"; break;
      case '"': o += "\\\""; break;
      case '\n': o += "\\n"; break;
      case '\r': o += "\\r"; break;
      case '\t': o += "\\t"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static const char* hex = "0123456789abcdef";
          o += "\\x";
          o += hex[c >> 4];
          o += hex[c & 15];
        } else {
          o += static_cast<char>(c);
        }
    }
  }
  return o + "\"";
}

// `root` as written into the pytest file.
std::string pytest_root(const std::string& root, const fs::path& file_dir) {
  if (file_dir.empty()) return root;
  std::error_code ec;
  fs::path r = fs::weakly_canonical(fs::absolute(root), ec);
  if (ec) r = fs::absolute(root).lexically_normal();
  fs::path d = fs::weakly_canonical(fs::absolute(file_dir), ec);
  if (ec) d = fs::absolute(file_dir).lexically_normal();
  // Relative only when they share more than "/": a path into another tree
  // (site-packages, another checkout) stays absolute.
  std::size_t common = 0;
  for (auto ri = r.begin(), di = d.begin(); ri != r.end() && di != d.end() && *ri == *di; ++ri, ++di)
    ++common;
  if (common <= 1) return r.generic_string();
  fs::path rel = r.lexically_relative(d);
  if (rel.empty()) return r.generic_string();
  std::string s = rel.generic_string();
  return s.empty() ? "." : s;
}

}  // namespace

std::string_view verify_child_code() { return kChildCode; }

std::string_view to_string(ImportOutcome o) {
  switch (o) {
    case ImportOutcome::Ok: return "ok";
    case ImportOutcome::Circular: return "circular";
    case ImportOutcome::Other: return "other";
  }
  return "other";
}

std::optional<Isolation> parse_isolation(std::string_view s) {
  if (s == "fork") return Isolation::Fork;
  if (s == "process") return Isolation::Process;
  return std::nullopt;
}

std::optional<EntryMode> parse_entry_mode(std::string_view s) {
  if (s == "normal") return EntryMode::Normal;
  if (s == "bare") return EntryMode::Bare;
  if (s == "lazy") return EntryMode::Lazy;
  return std::nullopt;
}

std::vector<VerifyResult> verify_modules(const std::vector<std::string>& modules,
                                         const std::vector<std::string>& sys_path_roots,
                                         const VerifyOptions& options) {
  std::vector<VerifyResult> results(modules.size());
  if (modules.empty()) return results;

  // Notes go to the caller once each, whichever worker has them.
  std::mutex note_mu;
  std::set<std::string> noted;
  auto note = [&](const std::string& text) {
    std::lock_guard<std::mutex> lock(note_mu);
    if (options.note && noted.insert(text).second) options.note(text);
  };

  std::optional<PycachePrefix> pycache;
  if (options.bytecode_cache) {
    pycache.emplace();
    if (pycache->dir().empty()) {
      note(pycache->error() + "; bytecode is not cached");
      pycache.reset();
    }
  }

  // The environment, once: PYTHONPATH (and anything that would make the
  // interpreter interactive or change what -c runs) out; bytecode either
  // written only to the run's private cache or not at all.
  std::vector<std::string> env_storage;
  for (char** e = environ; e && *e; ++e) {
    std::string_view kv(*e);
    auto key = kv.substr(0, kv.find('='));
    if (key == "PYTHONPATH" || key == "PYTHONDONTWRITEBYTECODE" || key == "PYTHONPYCACHEPREFIX" ||
        key == "PYTHONINSPECT" || key == "PYTHONSTARTUP" || key == "PYTHONSAFEPATH")
      continue;
    env_storage.emplace_back(kv);
  }
  if (pycache)
    env_storage.emplace_back("PYTHONPYCACHEPREFIX=" + pycache->dir().string());
  else
    env_storage.emplace_back("PYTHONDONTWRITEBYTECODE=1");
  // No script directory on sys.path (3.11+; older interpreters ignore it). From
  // 3.13 on, a circular import of a module in the script directory (here, the
  // tree: verify runs in it) is worded as possible shadowing ("consider
  // renaming ...") instead of "partially initialized", and outcomes are read
  // from that wording.
  env_storage.emplace_back("PYTHONSAFEPATH=1");
  std::vector<char*> envp;
  for (auto& kv : env_storage) envp.push_back(kv.data());
  envp.push_back(nullptr);

  std::vector<std::string> roots;
  for (const auto& r : sys_path_roots) roots.push_back(fs::absolute(r).lexically_normal().string());
  const std::string code(kChildCode);
  const std::string mode(to_string(options.mode));

  const std::string python = resolve_python(options.python, envp.data(), options.timeout_s);

  unsigned jobs = options.jobs ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = static_cast<unsigned>(std::min<std::size_t>(jobs, modules.size()));
  std::atomic<std::size_t> next{0};
  // Handed out in name order: a fork server imports each package on the way
  // once for the modules under it (kForkServerCode's zygotes).
  std::vector<std::size_t> order(modules.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return modules[x] < modules[y]; });
  // Lazy entry needs -X lazy_imports=all on the interpreter: fresh processes.
  const bool fork_server = options.isolation == Isolation::Fork && options.mode != EntryMode::Lazy;
  auto worker = [&] {
    std::optional<ForkServer> server;
    if (fork_server) {
      std::string why;
      server.emplace();
      if (!server->start(python, roots, envp.data(), options.timeout_s, &why)) {
        note("the fork server did not start (" + why + "); importing each module in a fresh interpreter instead");
        server.reset();
      }
    }
    for (std::size_t n; (n = next.fetch_add(1)) < modules.size();) {
      const std::size_t i = order[n];
      std::optional<ChildRun> run;
      if (server) {
        std::string why;
        run = server->run(mode, modules[i], options.timeout_s, &why);
        if (!server->alive()) {
          note("a fork server stopped (" + why + "); importing its remaining modules in fresh interpreters");
          server.reset();
        }
      }
      if (!run) {
        std::vector<std::string> args = {"-c", code, mode, modules[i]};
        // PEP 810's global switch (Python 3.15+): module-level imports become lazy.
        if (options.mode == EntryMode::Lazy) args.insert(args.begin(), {"-X", "lazy_imports=all"});
        args.insert(args.end(), roots.begin(), roots.end());
        run = run_child(python, args, envp.data(), options.timeout_s);
      }
      results[i] = classify(modules[i], *run, options.timeout_s);
    }
  };
  if (jobs <= 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < jobs; ++t) threads.emplace_back(worker);
    for (auto& t : threads) t.join();
  }
  return results;
}

nlohmann::json verify_json(const std::vector<VerifyResult>& results, const VerifyOptions& options) {
  nlohmann::json j;
  j["entry_mode"] = std::string(to_string(options.mode));
  j["python"] = options.python;
  j["results"] = nlohmann::json::array();
  std::size_t ok = 0, circular = 0, other = 0;
  for (const auto& r : results) {
    j["results"].push_back({{"module", r.module},
                            {"outcome", std::string(to_string(r.outcome))},
                            {"error_type", r.error_type},
                            {"message", r.message}});
    (r.outcome == ImportOutcome::Ok ? ok : r.outcome == ImportOutcome::Circular ? circular : other)++;
  }
  j["counts"] = {{"ok", ok}, {"circular", circular}, {"other", other}};
  return j;
}

std::string pytest_file(const std::vector<std::string>& modules,
                        const std::vector<std::string>& sys_path_roots,
                        const PytestFileOptions& options) {
  std::string o;
  o += R"PY(# Generated by cyclefix: import-cycle regression test.
"""Imports each module first, in a fresh interpreter, in two ways.

normal: as any plain import does, its parent packages' __init__.py run first.
bare:   its parent packages are present but their __init__.py bodies have not
        run, which is what lazy imports (Cinder, PEP 810) see.

A circular-import error ("partially initialized module") fails the test; any
other error (a missing third-party dependency, say) skips it. Without pytest,
run it as a script: python3 <this file>.
"""

import json
import os
import subprocess
import sys

try:
    import pytest
except ImportError:  # still runs as a plain script
    pytest = None

HERE = os.path.dirname(os.path.abspath(__file__))

# Source roots, relative to this file's directory (or absolute); first on sys.path.
ROOTS = [os.path.normpath(os.path.join(HERE, root)) for root in [
)PY";
  for (const auto& r : sys_path_roots) o += "    " + py_str(pytest_root(r, options.file_dir)) + ",\n";
  o += "]]\n\nMODULES = [\n";
  for (const auto& m : modules) o += "    " + py_str(m) + ",\n";
  o += "]\n\nMODES = [\"normal\", \"bare\"]\n\nTIMEOUT = " + format_seconds(options.timeout_s) + "\n\n";
  o += "# What each fresh interpreter runs: python -c _CHILD MODE MODULE ROOT...\n";
  o += "_CHILD = r'''";
  o += kChildCode;
  o += R"PY('''


def import_first(module, mode):
    """Imports `module` first in a fresh interpreter: (outcome, error_type, message)."""
    env = dict(os.environ)
    for key in ("PYTHONPATH", "PYTHONINSPECT", "PYTHONSTARTUP"):
        env.pop(key, None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    # No script directory on sys.path: from 3.13 a circular import of a module
    # found there is worded as shadowing ("consider renaming"), not as circular.
    env["PYTHONSAFEPATH"] = "1"
    try:
        proc = subprocess.run([sys.executable, "-c", _CHILD, mode, module] + ROOTS,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, env=env, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        return "other", "Timeout", "timed out after %s s" % TIMEOUT
    for line in proc.stdout.decode("utf-8", "replace").splitlines():
        try:
            result = json.loads(line)
            return result["outcome"], result["error_type"], result["message"]
        except (ValueError, KeyError, TypeError):
            break
    err = proc.stderr.decode("utf-8", "replace").strip().splitlines()
    return ("other", "InterpreterExit", "interpreter exited with status %d without reporting a result%s"
            % (proc.returncode, ": " + err[-1] if err else ""))


def describe(module, mode, error_type, message):
    return "%s (%s entry): %s: %s" % (module, mode, error_type, message)


if pytest is not None:
    @pytest.mark.parametrize("module,mode", [(m, mode) for m in MODULES for mode in MODES],
                             ids=["%s-%s" % (m, mode) for m in MODULES for mode in MODES])
    def test_no_circular_import(module, mode):
        outcome, error_type, message = import_first(module, mode)
        if outcome == "circular":
            pytest.fail("circular import: " + describe(module, mode, error_type, message),
                        pytrace=False)
        if outcome != "ok":
            pytest.skip("does not import for another reason: "
                        + describe(module, mode, error_type, message))


def main():
    passed = failed = skipped = 0
    for module in MODULES:
        for mode in MODES:
            outcome, error_type, message = import_first(module, mode)
            if outcome == "ok":
                passed += 1
            elif outcome == "circular":
                failed += 1
                print("FAILED circular import: " + describe(module, mode, error_type, message))
            else:
                skipped += 1
                print("SKIPPED " + describe(module, mode, error_type, message))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
)PY";
  return o;
}

}  // namespace cyclefix
