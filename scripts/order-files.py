#!/usr/bin/env python3
"""Regenerates packaging/order/weatherd.txt and weatherctl.txt, the symbol ordering files of the
release link (Package.swift, `releaseLink`).

Why: a page of code is resident once anything on it ran, and the kernel maps a fault's neighbours
with it (fault-around, 64 KB). Laid out as the compiler emits it, the code weatherd runs is spread
over most of its 19 MB of text, so an idle weatherd had 12 MB of it resident. lld's
--symbol-ordering-file puts the input sections holding the listed symbols first, together; the
release build gives every function a section of its own (the Makefile's RELEASE_FLAGS:
`-Xfrontend -function-sections` for every Swift module), so what moves is the code that ran, not the
whole file around it.

How: the release binaries are linked with a map (which input section each address is in), run
under valgrind's callgrind through a workload (start-up with a real gpsd connected when one is
installed, the watched cities' round, every socket method, the web routes, a WebSocket, a reload, a
clean stop; weatherctl's commands), and every input section that ran code is listed by up to three
of its symbols (the shortest executed names that are unique in the binary: a name defined in many
objects would pull all of them in).

The compiler's small helpers are emitted into every object that needs one, all under one name
(`objectdestroyTm`, `__swift_destroy_boxed_opaque_existential_1Tm`, `block_copy_helper`, ...). An
ordering file cannot list such a name without pulling in every section defining it, the prebuilt
libraries' whole `.text` among them, so the helpers go by section name instead: packaging/order/
layout.ld, which this script also writes, gathers them (every copy in an object with function
sections, about 20 KB in all) with the code that has no symbol, just before `.text`. Left in
place, each one that runs makes a page of cold code resident, with its neighbours.

SwiftPM does not recompile when only -Xswiftc flags change: objects compiled before without
-function-sections stay as they were, one `.text` each, and an ordering made from them moves whole
files. The script stops when it finds such objects.

A stale file costs only memory, never correctness: names that no longer exist are ignored
(--no-warn-symbol-ordering) and their code lands among the cold code. Rerun after large changes:

    make order-files          (needs valgrind; about 4 minutes)
"""
import argparse
import base64
import collections
import fnmatch
import http.client
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench"))
from benchlib import free_port  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PER_SECTION = 3
# A name defined in several objects (a local helper the compiler emits in each file that needs it:
# outlined copies, merged destructors) pulls every section defining it: listed only when all of them
# together are this small.
SHARED_PULL = 16 * 1024


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--swift", default=os.environ.get("SWIFT", "swift"))
    p.add_argument("--out", default=os.path.join(ROOT, "packaging/order"))
    args = p.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("order-files: valgrind is needed (Debian: valgrind)")
    tmp = tempfile.mkdtemp(prefix="wd-order-")
    try:
        # the Makefile's RELEASE_FLAGS (one .text section per function)
        flags = ["-c", "release", "--static-swift-stdlib",
                 "-Xswiftc", "-Xfrontend", "-Xswiftc", "-function-sections"]
        bindir = subprocess.run([args.swift, "build", *flags, "--show-bin-path"], cwd=ROOT, check=True,
                                capture_output=True, text=True).stdout.strip()
        maps = {}
        for product in ("weatherd", "weatherctl", "owm-replay"):
            extra = []
            if product != "owm-replay":
                maps[product] = os.path.join(tmp, product + ".map")
                extra = ["-Xlinker", "-Map=" + maps[product], "-Xlinker", "--no-demangle"]
            subprocess.run([args.swift, "build", *flags, "--product", product, *extra], cwd=ROOT, check=True)
            if product in maps:
                check_function_sections(maps[product], bindir)
        # valgrind cannot read the toolchain's DWARF; the symbol table is all it needs
        prof = os.path.join(tmp, "bin")
        os.mkdir(prof)
        for product in ("weatherd", "weatherctl", "owm-replay"):
            subprocess.run(["strip", "--strip-debug", "-o", os.path.join(prof, product),
                            os.path.join(bindir, product)], check=True)
        callgrind = ["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no",
                     "--compress-pos=no", "--dump-instr=yes"]
        d_out = os.path.join(tmp, "weatherd.cg")
        c_out = os.path.join(tmp, "weatherctl.cg.%p")
        bias = workload(prof, tmp, callgrind + ["--callgrind-out-file=" + d_out],
                 callgrind + ["--callgrind-out-file=" + c_out])
        os.makedirs(args.out, exist_ok=True)
        helpers = set()
        dumps = sorted((f for f in os.listdir(tmp) if f.startswith("weatherd.cg")), key=lambda f: (len(f), f))
        ctl_dumps = [f for f in os.listdir(tmp) if f.startswith("weatherctl.cg.")]
        # weatherd.cg.1 is the idle dump, weatherd.cg the rest
        for product, outs in (("weatherd", [[os.path.join(tmp, f) for f in dumps if f != "weatherd.cg"],
                                            [os.path.join(tmp, "weatherd.cg")]]),
                              ("weatherctl", [[os.path.join(tmp, f) for f in ctl_dumps]])):
            names, hot, total, first, shared = order(maps[product], outs, product, bias)
            names = ALWAYS_HOT + [n for n in names if n not in ALWAYS_HOT]
            helpers |= shared
            path = os.path.join(args.out, product + ".txt")
            with open(path, "w") as f:
                f.write("\n".join(names) + "\n")
            print(f"order-files: {path}: {len(names)} names for {len(hot)} input sections "
                  f"({sum(hot.values()) / 1e6:.1f} MB of {total / 1e6:.1f} MB of code; "
                  f"{first / 1e6:.1f} MB of it ran in the first phase)")
        with open(os.path.join(args.out, "layout.ld"), "w") as f:
            f.write(layout_script(helpers))
        print(f"order-files: {os.path.join(args.out, 'layout.ld')}: {len(helpers)} helper sections named "
              f"beside the patterns")
        # the next release build links with the new files (SwiftPM does not see them change)
        for product in ("weatherd", "weatherctl"):
            os.unlink(os.path.join(bindir, product))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read_map(path):
    """The code's input sections of an lld map (.text, and layout.ld's .text.anonymous): (start, size,
    name, [(address, symbol)])."""
    sections = []
    in_text = False
    line_re = re.compile(r"\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s(\s*)(.*)$")
    with open(path) as f:
        for line in f:
            m = line_re.match(line.rstrip("\n"))
            if not m:
                continue
            addr, size, indent, rest = int(m.group(1), 16), int(m.group(2), 16), len(m.group(3)), m.group(4)
            if indent == 0:      # an output section (.text, or layout.ld's before it)
                in_text = rest.strip() in (".text", ".text.anonymous")
            elif in_text and ":(" in rest:
                sections.append((addr, size, rest.strip(), []))
            elif in_text and sections:
                sections[-1][3].append((addr, rest.strip()))
    sections.sort()
    return sections


def executed(outs, product, bias):
    """Addresses of the instructions that ran in `product`, from callgrind outputs. Valgrind knows
    a binary's code by its .text section: what ran in the code before it (layout.ld's section) is
    under the unknown object "???", at its address in the process, `bias` above the binary's own."""
    seen = set()
    for out in outs:
        mine = unknown = False
        with open(out, errors="replace") as f:
            for line in f:
                if line.startswith("ob="):
                    mine = line[3:].strip().endswith("/" + product)
                    unknown = line[3:].strip() == "???"
                elif (mine or unknown) and line.startswith("0x"):
                    a = int(line.split()[0], 16)
                    seen.add(a if mine else a - bias)
    return seen


def order(map_path, outs, product, bias):
    """The names to list for `product`; `outs` are its callgrind outputs by phase, first phase first."""
    import bisect
    sections = read_map(map_path)
    starts = [s[0] for s in sections]
    defined = collections.Counter(name for s in sections for _, name in s[3])
    pull = collections.Counter()           # name -> the bytes of every section defining it
    for s in sections:
        for name in {n for _, n in s[3]}:
            pull[name] += s[1]
    ran = collections.defaultdict(set)     # section index -> addresses
    phase = {}                             # section index -> the first phase it ran in
    for n, files in enumerate(outs):
        for a in executed(files, product, bias):
            i = bisect.bisect_right(starts, a) - 1
            if i >= 0 and a < sections[i][0] + sections[i][1]:
                ran[i].add(a)
                phase.setdefault(i, n)
    names, hot, listed, missed = [], {}, set(), 0
    shared = set()    # the section names of helpers that ran, for layout.ld
    for i in sorted(ran, key=lambda i: (phase[i], i)):
        start, size, _, symbols = sections[i]
        symbols = sorted(symbols)
        addrs = [s[0] for s in symbols]
        # the symbols whose code ran (the nearest symbol at or before each address)
        hit = {symbols[j][1] for a in ran[i] if (j := bisect.bisect_right(addrs, a) - 1) >= 0}
        unique = sorted((n for n in hit if defined[n] == 1), key=lambda n: (len(n), n))
        if not unique:   # only shared names ran: any unique name pulls the section in
            unique = sorted((n for _, n in symbols if defined[n] == 1), key=lambda n: (len(n), n))
        if not unique:   # none: a shared name that ran, if what it pulls in is small
            unique = sorted((n for n in hit if pull[n] <= SHARED_PULL), key=lambda n: (pull[n], n))[:1]
        if unique:
            names.extend(n for n in unique[:PER_SECTION] if n not in listed)
            listed.update(unique[:PER_SECTION])
            hot[i] = size
        else:
            missed += size
            # a helper under a shared name: layout.ld names its section (all copies in objects
            # with function sections), not the whole .text of a prebuilt library
            section = sections[i][2].rsplit(":(", 1)[-1].rstrip(")")
            if section.startswith(".text.") and not section.startswith(".text..L"):
                shared.add(section)
    first = sum(size for i, size in hot.items() if phase[i] == 0)
    if missed:
        print(f"order-files: {product}: {missed / 1e3:.0f} KB of code that ran has no name of its own (no symbol, "
              f"or one defined in many objects): layout.ld gathers it")
    return names, hot, sum(s[1] for s in sections), first, shared


# Code an idle daemon runs by chance, which a workload may miss: a Mutex's paths when two threads
# meet at it. Listed first, always.
ALWAYS_HOT = ["$s15Synchronization12_MutexHandleV9_lockSlowyys6UInt32VF",
              "$s15Synchronization12_MutexHandleV11_unlockSlowyyF",
              "$s15Synchronization12_MutexHandleV12_tryLockSlowSbyF"]

# Helpers every object may define, gathered whichever of them ran in the workload.
HELPER_PATTERNS = [".text.objectdestroy*", ".text.__swift_*", ".text.block_copy_helper", ".text.block_destroy_helper"]

LAYOUT_HEAD = """/* Generated by scripts/order-files.py (make order-files): the release link's one addition to
   lld's default layout (Package.swift, releaseLink), an output section just before .text holding
   - the code that has no symbol (the compiler's private helpers, such as closure contexts'
     destructors and unnamed thunks: input sections named .text..L*), which no ordering file can name;
   - the compiler's small helpers, which every object that needs one defines under the same name
     (an ordering file naming one would pull in every section defining it, the prebuilt libraries'
     whole .text among them): every copy in an object with function sections, by section name.
   Left in place, each piece of them that runs makes a page of cold code resident (with its
   neighbours: the kernel's fault-around). All of it is about 100 KB. */
"""


def layout_script(helpers):
    named = sorted(h for h in helpers if not any(fnmatch.fnmatchcase(h, p) for p in HELPER_PATTERNS))
    lines = [LAYOUT_HEAD, "SECTIONS {", "  .text.anonymous : {", "    *(.text..L*)",
             "    *(" + " ".join(HELPER_PATTERNS) + ")"]
    lines += [f'    *("{h}")' for h in named]
    lines += ["  }", "} INSERT BEFORE .text;", ""]
    return "\n".join(lines)


def check_function_sections(map_path, bindir):
    """Stops when the Swift objects of the link were compiled without -function-sections."""
    whole = sum(size for _, size, name, _ in read_map(map_path)
                if name.endswith(":(.text)") and ".swift.o" in name and bindir in name)
    if whole > 64 * 1024:
        sys.exit(f"order-files: {whole / 1e6:.1f} MB of the package's Swift code is in whole-file .text "
                 f"sections: its objects were compiled without -function-sections, and SwiftPM does not "
                 f"recompile when only -Xswiftc flags change. Remove {bindir} (or the package's .build) "
                 f"and run this again.")


def workload(bindir, tmp, daemon_wrapper, ctl_wrapper):
    procs = []
    try:
        replay = subprocess.Popen([f"{bindir}/owm-replay", "--port", "0", "--data", f"{ROOT}/demo/owm"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        procs.append(replay)
        base = replay.stdout.readline().strip().split("listening on ")[1]
        gpsd_port, web_port = free_port(), free_port()
        # a real gpsd without a receiver, as an idle weatherd usually has (and bench-daemon.py's idle):
        # its start-up and first exchange belong to the first phase; without one nothing listens there
        gpsd = shutil.which("gpsd") or ("/usr/sbin/gpsd" if os.path.exists("/usr/sbin/gpsd") else None)
        if gpsd:
            procs.append(subprocess.Popen([gpsd, "-N", "-n", "-S", str(gpsd_port), "-F", f"{tmp}/gpsd.ctl"],
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            wait_listening(gpsd_port)
        sock = f"{tmp}/w.sock"
        config = f"{tmp}/weatherd.toml"
        with open(config, "w") as f:
            # bench-daemon.py's keys among them (a duration, a rate, a limit): their parsing runs at start
            f.write(f'cities = ["London,GB", "Seoul,KR"]\n[weather]\ncache_ttl = "1h"\n[openweathermap]\n'
                    f'base_url = "{base}"\napi_key = "profile"\nrequests_per_minute = 6000\n[air-quality]\n'
                    f'base_url = "{base}"\n[socket]\npath = "{sock}"\nmax_clients = 16384\n[gpsd]\nenabled = true\n'
                    f'port = {gpsd_port}\n[state]\ndirectory = "{tmp}/state"\n[web]\n'
                    f'listen = "127.0.0.1:{web_port}"\n')
        env = {k: v for k, v in os.environ.items()
               if k not in ("OWM_API_KEY", "CREDENTIALS_DIRECTORY", "NOTIFY_SOCKET", "WATCHDOG_USEC",
                            "LISTEN_FDS", "LISTEN_PID")}
        env["WEATHERD_WEB_ROOT"] = f"{ROOT}/web"
        daemon = subprocess.Popen(daemon_wrapper + [f"{bindir}/weatherd", "--config", config, "--log-level", "info"],
                                  stderr=subprocess.DEVNULL, env=env)
        procs.append(daemon)
        deadline = time.monotonic() + 300
        while not os.path.exists(sock):
            if daemon.poll() is not None or time.monotonic() > deadline:
                sys.exit("order-files: weatherd did not start under valgrind")
            time.sleep(0.2)
        # what an idle daemon runs (start-up, the watched cities' round) goes first, before what serving
        # clients runs: an idle weatherd then touches only the start of the hot code
        settle(sock)
        # where valgrind loaded the binary (the same for every run of a position-independent binary)
        with open(f"/proc/{daemon.pid}/maps") as f:
            bias = next(int(line.split("-")[0], 16) for line in f
                        if line.rstrip().endswith("/weatherd") and line.split()[2] == "00000000")
        subprocess.run(["callgrind_control", "--dump=idle", str(daemon.pid)], check=True,
                       stdout=subprocess.DEVNULL)
        socket_methods(sock)
        web(web_port)
        ctl = [f"{bindir}/weatherctl", "--socket", sock]
        for cmd in (["state"], ["search", "Paris,FR"], ["search", "Nowhere At All"], ["overlays"],
                    ["cities"], ["forecast", "Paris,FR"], ["region", "48.8", "2.3"], ["version"],
                    ["--help"], ["search"]):
            subprocess.run(ctl_wrapper + ctl + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        watch = subprocess.Popen(ctl_wrapper + ctl + ["watch"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                 env=env)
        # Its first line, or two minutes (under valgrind); then it is told to stop either way.
        if not select.select([watch.stdout], [], [], 120)[0]:
            watch.kill()
            sys.exit("order-files: weatherctl watch printed nothing in 120 s")
        watch.stdout.readline()
        watch.send_signal(signal.SIGTERM)
        watch.wait(timeout=120)
        daemon.send_signal(signal.SIGHUP)
        Line(sock).call("state")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(timeout=300) != 0:
            sys.exit("order-files: weatherd did not stop cleanly")
        return bias
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def wait_listening(port):
    deadline = time.monotonic() + 10
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            if time.monotonic() > deadline:
                sys.exit("order-files: gpsd did not start")
            time.sleep(0.05)


class Line:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(120)
        self.s.connect(path)
        self.f = self.s.makefile("rb")

    def send(self, raw):
        self.s.sendall(raw)
        return json.loads(self.f.readline())

    def call(self, method, params=None, i=1):
        m = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            m["params"] = params
        self.s.sendall(json.dumps(m).encode() + b"\n")
        while True:
            reply = json.loads(self.f.readline())
            if reply.get("id") == i:
                return reply


def settle(sock):
    """Waits until the watched cities' round is done (the state's phase leaves loading)."""
    c = Line(sock)
    c.s.sendall(b'{"jsonrpc":"2.0","id":0,"method":"watch","params":{"replay":true,"topics":["state"]}}\n')
    while True:
        msg = json.loads(c.f.readline())
        if msg.get("method") == "state" and msg["params"]["phase"] != "loading" and not msg["params"]["running"]:
            break
    c.s.close()


def socket_methods(sock):
    watcher = Line(sock)
    watcher.s.sendall(b'{"jsonrpc":"2.0","id":0,"method":"watch","params":{"replay":true}}\n')
    diff = Line(sock)
    diff.call("watch", {"diff": True, "topics": ["overlays"]})
    c = Line(sock)
    for _ in range(3):
        c.call("search", {"city": "Paris,FR"})
        c.call("search", {"city": "  berlin , de"})
    for method, params in (("search", {"city": "Nowhere At All"}), ("state", None), ("overlays", None),
                           ("cities", None), ("version", None),
                           ("region", {"center": {"lat": 48.8, "lon": 2.3}, "span": {"lat": 2, "lon": 3}}),
                           ("forecast", {"city": "Paris,FR", "hours": 48}), ("forecast", {"lat": 51.5, "lon": -0.1}),
                           ("locate", {"timeout": 0.2}), ("cities.add", {"city": "Rome,IT"}),
                           ("cities.remove", {"city": "Rome,IT"}), ("nosuch", {}), ("search", {"city": 3}),
                           ("search", {"city": "Madrid,ES"}), ("reload", {})):
        c.call(method, params)
    c.send(b'{not json\n')
    c.send(b'[{"jsonrpc":"2.0","id":12,"method":"state"},{"jsonrpc":"2.0","id":13,"method":"version"}]\n')
    for conn in (watcher, diff, c):
        conn.s.close()


def web(port):
    for method, path in (("GET", "/"), ("GET", "/assets/app.js"), ("GET", "/assets/style.css"),
                         ("GET", "/assets/config.json"), ("GET", "/overlays.geojson"), ("GET", "/state.json"),
                         ("GET", "/healthz"), ("GET", "/metrics"), ("GET", "/nope"), ("HEAD", "/"),
                         ("POST", "/"), ("GET", "/assets/leaflet/leaflet.js")):
        h = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        h.request(method, path)
        h.getresponse().read()
        h.close()
    ws = socket.create_connection(("127.0.0.1", port), timeout=120)
    key = base64.b64encode(os.urandom(16)).decode()
    ws.sendall((f"GET /ws HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nOrigin: http://127.0.0.1:{port}\r\n\r\n")
               .encode())
    head = b""
    while b"\r\n\r\n" not in head:
        head += ws.recv(4096)
    for text in ('{"jsonrpc":"2.0","id":1,"method":"watch"}',
                 '{"jsonrpc":"2.0","id":2,"method":"search","params":{"city":"Paris,FR"}}',
                 '{"jsonrpc":"2.0","id":3,"method":"region","params":{"center":{"lat":40,"lon":-3}}}'):
        ws.sendall(frame(text))
    got = head.split(b"\r\n\r\n", 1)[1]
    while b'"id":3' not in got:
        got += ws.recv(65536)
    ws.sendall(frame("", 9))     # a ping
    ws.sendall(frame("", 8))     # close
    while ws.recv(65536):
        pass
    ws.close()


def frame(text, opcode=1):
    payload, mask = text.encode(), os.urandom(4)
    n = len(payload)
    head = bytes([0x80 | opcode]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


if __name__ == "__main__":
    main()
