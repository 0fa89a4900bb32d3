#!/usr/bin/env python3
"""System test (`make systest`): weatherd's Debian package under a real systemd as PID 1.

As root on the host:
  1. a minimal Debian 12 root made with debootstrap (systemd, systemd-sysv, dbus), kept in
     /var/cache/weatherd-systest/ keyed by a hash of what it was made from, and copied fresh for
     each run, so runs do not see each other's changes;
  2. owm-replay (the offline OpenWeatherMap and Open-Meteo) and gpsfake on the host's loopback, which the
     container shares (systemd-nspawn without --private-network);
  3. the copy booted with `systemd-nspawn --boot`; the package installed in it the way an operator
     does, `apt-get install ./weatherd_*.deb` (its dependencies from the Debian mirror; the root has
     no Swift) and the configuration pointed at the stand-ins; first without any key (Open-Meteo
     serves), then with an API key in /etc/weatherd/owm-api-key;
  4. the checks, each printed as PASS or FAIL with what it saw, run through
     `nsenter --target PID --mount --uts --ipc --net --pid --cgroup` into the container's systemd.
The last line is `systest: N passed, M failed`; the exit status is 1 when a check failed, 2 when
the test could not be set up. Logs of the run (console, journal) stay in .build/systest/.

Python 3.11 standard library only.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import glob
import hashlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from gpsd_devices import wait_for_device  # scripts/gpsd_devices.py

REPO = Path(__file__).resolve().parent.parent
SUITE = "bookworm"
VARIANT = "minbase"
INCLUDE = "systemd,systemd-sysv,dbus"
# Changing how the cached root is made changes this, and so the cache key.
ROOT_RECIPE = 1
CACHE = Path(os.environ.get("WEATHERD_SYSTEST_CACHE", "/var/cache/weatherd-systest"))  # roots, downloaded packages
SOCKET = "/run/weatherd/weatherd.sock"
API_KEY = "systest-0123456789abcdef"
CONTAINER_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def log(message: str) -> None:
    print(message, flush=True)


class SetupError(Exception):
    """The test could not be set up (no check ran on its account)."""


# ---------------------------------------------------------------------------------------------
# The cached root


def debian_mirror() -> str:
    """The Debian mirror of the host's apt sources (deb822 or one-line), else deb.debian.org."""
    candidates: list[str] = []
    for path in sorted(glob.glob("/etc/apt/sources.list.d/*.sources")):
        for stanza in Path(path).read_text().split("\n\n"):
            fields = dict(
                (m.group(1).lower(), m.group(2).strip())
                for m in re.finditer(r"^([A-Za-z-]+):[ \t]*(.*)$", stanza, re.M)
            )
            if SUITE in fields.get("suites", "").split() and "deb" in fields.get("types", "").split():
                candidates += fields.get("uris", "").split()
    for path in ["/etc/apt/sources.list", *sorted(glob.glob("/etc/apt/sources.list.d/*.list"))]:
        with contextlib.suppress(OSError):
            for line in Path(path).read_text().splitlines():
                words = re.sub(r"\[[^]]*\]", "", line).split()
                if len(words) >= 3 and words[0] == "deb" and words[2] == SUITE:
                    candidates.append(words[1])
    for uri in candidates:
        if "security" not in uri:
            return uri.rstrip("/")
    return "http://deb.debian.org/debian"


def cached_root(mirror: str) -> Path:
    """The pristine root for this recipe, made with debootstrap when it is not cached yet."""
    key = hashlib.sha256(f"{SUITE} {VARIANT} {INCLUDE} {mirror} {ROOT_RECIPE}".encode()).hexdigest()[:12]
    home = CACHE / f"{SUITE}-{key}"
    root = home / "root"
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one debootstrap at a time; others wait and reuse it
        if (home / "complete").exists():
            log(f"root: cached {root}")
            return root
        shutil.rmtree(home, ignore_errors=True)
        partial = CACHE / f"{SUITE}-{key}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir()
        log(f"root: debootstrap --variant={VARIANT} --include={INCLUDE} {SUITE} {mirror} (not cached yet)")
        started = time.monotonic()
        result = subprocess.run(
            ["debootstrap", f"--variant={VARIANT}", f"--include={INCLUDE}", SUITE, str(partial / "root"), mirror],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if result.returncode != 0:
            tail = "\n".join(result.stdout.splitlines()[-20:])
            raise SetupError(f"debootstrap failed ({result.returncode}):\n{tail}")
        (partial / "root/etc/hostname").write_text("weatherd-systest\n")
        (partial / "complete").write_text(f"{SUITE} {VARIANT} {INCLUDE} {mirror}\n")
        partial.rename(home)
        log(f"root: made in {time.monotonic() - started:.0f} s, cached in {root}")
        return root


# ---------------------------------------------------------------------------------------------
# Host-side stand-ins


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port: int, timeout: float, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SetupError(f"{process.args[0]} ended ({process.returncode}) before 127.0.0.1:{port} answered")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
            return
        time.sleep(0.1)
    raise SetupError(f"nothing answered on 127.0.0.1:{port} within {timeout:g} s")


def start_gpsfake(port: int, log_file: Path) -> subprocess.Popen:
    """gpsfake replaying bu353s4.log, its gpsd on 127.0.0.1:port, once that gpsd reads gpsfake's device.

    gpsfake adds its pty through gpsd's control socket once the socket file exists; the file exists from
    bind(), before listen(), and a connect in between is refused: gpsfake then never adds the device and
    its gpsd sends no fix. Such a gpsfake is killed and started anew."""
    for _ in range(3):
        gpsfake = subprocess.Popen(
            ["gpsfake", "-q", "-n", "-c", "0.5", "-P", str(port), str(REPO / "Tests/Fixtures/nmea/bu353s4.log")],
            stdin=subprocess.DEVNULL, stdout=open(log_file, "a"), stderr=subprocess.STDOUT,
            start_new_session=True)
        try:
            wait_for_port(port, 30, gpsfake)
            if wait_for_device(port, 5):
                return gpsfake
        except BaseException:
            os.killpg(gpsfake.pid, signal.SIGKILL)
            gpsfake.wait(timeout=10)
            raise
        log(f"host: gpsd on 127.0.0.1:{port} never got gpsfake's device (gpsfake's control-socket race); starting it anew")
        os.killpg(gpsfake.pid, signal.SIGKILL)
        gpsfake.wait(timeout=10)
    raise SetupError(f"gpsfake's gpsd on 127.0.0.1:{port} never got its device, three times")


# ---------------------------------------------------------------------------------------------
# The container


@dataclass
class Result:
    returncode: int
    stdout: str
    stderr: str
    seconds: float

    @property
    def output(self) -> str:
        return (self.stdout + self.stderr).strip()


class Container:
    """A root booted with systemd-nspawn; commands run in it through nsenter."""

    def __init__(self, root: Path, name: str, binds: list[str], console: Path):
        self.root = root
        self.console = open(console, "w")
        self.nspawn = subprocess.Popen(
            ["systemd-nspawn", "--boot", "--register=no", "--keep-unit", f"--machine={name}",
             "--resolv-conf=copy-host", "--timezone=off", "--console=read-only", "-D", str(root),
             *[f"--bind={b}" for b in binds]],
            stdin=subprocess.DEVNULL, stdout=self.console, stderr=subprocess.STDOUT, start_new_session=True)
        self.pid = self._find_init(timeout=30)

    def _find_init(self, timeout: float) -> int:
        """The container's systemd: the child of the nspawn process."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.nspawn.poll() is not None:
                raise SetupError(f"systemd-nspawn ended ({self.nspawn.returncode}); see {self.console.name}")
            with contextlib.suppress(OSError):
                children = Path(f"/proc/{self.nspawn.pid}/task/{self.nspawn.pid}/children").read_text().split()
                for child in children:
                    if Path(f"/proc/{child}/comm").read_text().strip() == "systemd":
                        return int(child)
            time.sleep(0.1)
        raise SetupError(f"the container's systemd did not start within {timeout:g} s")

    def run(self, *argv: str, timeout: float = 60, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        environment = {"PATH": CONTAINER_PATH, "LANG": "C.UTF-8", "TERM": "dumb", "SYSTEMD_PAGER": "",
                       "SYSTEMD_COLORS": "0", "DEBIAN_FRONTEND": "noninteractive", "HOME": "/root"}
        environment.update(env or {})
        command = ["nsenter", f"--target={self.pid}", "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup",
                   "--wd=/", "--", "/usr/bin/env", "-i", *[f"{k}={v}" for k, v in environment.items()], *argv]
        started = time.monotonic()
        try:
            done = subprocess.run(command, input=input, capture_output=True, text=True, timeout=timeout,
                                  stdin=None if input is not None else subprocess.DEVNULL)
            return Result(done.returncode, done.stdout, done.stderr, time.monotonic() - started)
        except subprocess.TimeoutExpired as error:
            def text(b):
                return b.decode(errors="replace") if isinstance(b, bytes) else (b or "")
            return Result(124, text(error.stdout), text(error.stderr) + f"\n(timed out after {timeout:g} s)",
                          time.monotonic() - started)

    def popen(self, *argv: str) -> subprocess.Popen:
        return subprocess.Popen(
            ["nsenter", f"--target={self.pid}", "--mount", "--uts", "--ipc", "--net", "--pid", "--cgroup",
             "--wd=/", "--", "/usr/bin/env", "-i", f"PATH={CONTAINER_PATH}", "LANG=C.UTF-8", *argv],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def sh(self, script: str, timeout: float = 60) -> Result:
        return self.run("/bin/sh", "-c", script, timeout=timeout)

    def file(self, path: str) -> Path:
        """A path of the container as seen from the host (the root is a plain directory)."""
        return self.root / path.lstrip("/")

    def wait_booted(self, timeout: float) -> str:
        """Waits for the boot to finish (the bus may not be there yet at first)."""
        deadline = time.monotonic() + timeout
        while True:
            state = self.run("systemctl", "is-system-running", "--wait", timeout=max(1.0, deadline - time.monotonic()))
            if state.stdout.strip() in ("running", "degraded"):
                return state.stdout.strip()
            if time.monotonic() > deadline:
                raise SetupError(f"the container did not finish booting within {timeout:g} s: {state.output!r}")
            time.sleep(0.2)

    def stop(self) -> None:
        if self.nspawn.poll() is None:
            self.nspawn.send_signal(signal.SIGTERM)  # nspawn asks the container's systemd to power off
            try:
                self.nspawn.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.nspawn.pid, signal.SIGKILL)
                self.nspawn.wait(timeout=10)
        self.console.close()


# ---------------------------------------------------------------------------------------------
# The checks


@dataclass
class Report:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        (self.passed if ok else self.failed).append(name)
        detail = detail.strip()
        if ok:
            log(f"PASS {name}" + (f" ({detail})" if detail and "\n" not in detail and len(detail) < 160 else ""))
        else:
            log(f"FAIL {name}" + (":\n    " + detail.replace("\n", "\n    ") if detail else ""))
        return ok


class SysTest:
    def __init__(self, c: Container, report: Report, deb: Path, version: str, owm_port: int, gpsd_port: int, logs: Path):
        self.c, self.report, self.deb, self.version = c, report, deb, version
        self.owm_port, self.gpsd_port, self.logs = owm_port, gpsd_port, logs

    # -- helpers

    def check(self, name: str, ok: bool, detail: str = "") -> bool:
        return self.report.check(name, ok, detail)

    def ctl(self, *args: str, timeout: float = 30, user: str | None = None) -> Result:
        argv = ["weatherctl", "--socket", SOCKET, *args]
        if user:
            argv = ["runuser", "-u", user, "--", *argv]
        return self.c.run(*argv, timeout=timeout)

    def show(self, unit: str, *props: str) -> dict[str, str]:
        r = self.c.run("systemctl", "show", unit, *[f"--property={p}" for p in props])
        return dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)

    def systemctl(self, *args: str, timeout: float = 60) -> Result:
        return self.c.run("systemctl", *args, timeout=timeout)

    def socket_inode(self) -> str:
        r = self.c.run("stat", "-c", "%F %i %G", SOCKET)
        return r.stdout.strip() if r.returncode == 0 else f"missing: {r.output}"

    def wait_for(self, what, timeout: float, interval: float = 0.2):
        deadline = time.monotonic() + timeout
        value = what()
        while not value and time.monotonic() < deadline:
            time.sleep(interval)
            value = what()
        return value

    def kill(self, signal_name: str, pid: int) -> Result:
        """Signals a process of the container (a pid of its namespace; minbase has no kill(1): sh's)."""
        return self.c.run("/bin/sh", "-c", f"kill -{signal_name} {pid}")

    def main_pid(self) -> int:
        return int(self.show("weatherd.service", "MainPID").get("MainPID", "0") or 0)

    def n_restarts(self) -> int:
        return int(self.show("weatherd.service", "NRestarts").get("NRestarts", "0") or 0)

    def config_path(self) -> Path:
        return self.c.file("/etc/weatherd/weatherd.toml")

    def write_config(self, text: str) -> None:
        self.config_path().write_text(text)

    def journal(self, *args: str) -> str:
        return self.c.run("journalctl", "--no-pager", "-q", *args, timeout=60).stdout

    def served(self) -> Result:
        """A client request that needs the daemon (it activates the service if needed)."""
        return self.ctl("state", timeout=30)

    # -- install and configure

    def install(self) -> bool:
        shutil.copy(self.deb, self.c.file(f"/root/{self.deb.name}"))
        update = self.c.run("apt-get", "update", "-q", timeout=600)
        if not self.check("apt-get update in the container (Debian mirror)", update.returncode == 0, update.output[-2000:]):
            return False
        r = self.c.sh(f"cd /root && apt-get install -y -q --no-install-recommends ./{self.deb.name}", timeout=900)
        (self.logs / "apt-install.log").write_text(r.output)
        ok = self.check(f"apt-get install ./{self.deb.name} (dependencies from the mirror)",
                        r.returncode == 0, r.output[-3000:] if r.returncode else "")
        if not ok:
            return False
        swift = self.c.sh("ls -d /usr/lib/swift /opt/swift /usr/bin/swift* 2>/dev/null; "
                          "ldd /usr/bin/weatherd /usr/bin/weatherctl | grep -E 'not found|swift|Foundation|dispatch' || true")
        version = self.c.run("weatherd", "--version")
        self.check("binaries run in a root without Swift (runtime linked statically)",
                   not swift.stdout.strip() and version.returncode == 0 and version.stdout.strip() == self.version.split("-")[0],
                   f"weatherd --version: {version.output!r}; Swift found: {swift.stdout.strip()!r}")
        # Foundation's module name as Swift mangles it (in the binary's type and field names, which
        # stripping keeps) and the name of ICU's data: neither is there when only FoundationEssentials
        # is linked (Sources/CLinkOrder/link_order.c); both are when TOMLKit's import brings Foundation in.
        image = self.c.file("/usr/bin/weatherd").read_bytes()
        foundation = [name for name in ("10Foundation", "icudt") if name.encode() in image]
        self.check("the packaged weatherd carries FoundationEssentials only: no Foundation, CoreFoundation or ICU",
                   not foundation, f"found {foundation} in /usr/bin/weatherd")
        enabled = self.systemctl("is-enabled", "weatherd.socket").stdout.strip()
        active = self.systemctl("is-active", "weatherd.socket").stdout.strip()
        service = self.systemctl("is-active", "weatherd.service").stdout.strip()
        self.check("postinst enabled and started weatherd.socket, weatherd.service waits for a client",
                   (enabled, active, service) == ("enabled", "active", "inactive"),
                   f"weatherd.socket {enabled}/{active}, weatherd.service {service}")
        files = self.c.sh("ls /usr/share/man/man8/weatherd.8.gz /usr/share/man/man1/weatherctl.1.gz "
                          "/usr/share/man/man5/weatherd.toml.5.gz /usr/share/bash-completion/completions/weatherctl "
                          "/usr/share/doc/weatherd/copyright /usr/share/doc/weatherd/changelog.Debian.gz "
                          "/lib/systemd/system/weatherd.service && grep -c /usr/bin/weatherd /lib/systemd/system/weatherd.service")
        self.check("manual pages, completions, docs and units installed (units name /usr/bin/weatherd)",
                   files.returncode == 0, files.output)
        return True

    def configure(self, cities: str = '["London,GB"]') -> str:
        """The operator's edits to the installed example: the stand-ins (owm-replay answers for both
        OpenWeatherMap and Open-Meteo), one city. No API key yet: see add_key."""
        text = self.config_path().read_text()
        stand_in = f"http://127.0.0.1:{self.owm_port}"
        edits = [
            (r'(?m)^cities = .*$', f'cities = {cities}', 1),
            (r'(?m)^base_url = .*$', f'base_url = "{stand_in}"', 3),  # [openweathermap], [open-meteo], [air-quality]
            (r'(?m)^geocoding_url = .*$', f'geocoding_url = "{stand_in}"', 1),
            (r'(?m)^nws_url = .*$', f'nws_url = "{stand_in}"', 1),
            (r'(?m)^port = 2947$', f'port = {self.gpsd_port}', 1),
        ]
        for pattern, replacement, count in edits:
            text, n = re.subn(pattern, replacement, text)
            if n != count:
                raise SetupError(f"the installed weatherd.toml has {n} lines matching {pattern!r}, not {count}")
        self.write_config(text)
        return text

    def add_key(self) -> None:
        """The OpenWeatherMap key, where the unit's LoadCredential= takes it from; read at the next start."""
        key = self.c.file("/etc/weatherd/owm-api-key")
        key.write_text(API_KEY + "\n")
        os.chmod(key, 0o600)
        self.systemctl("restart", "weatherd.service")

    def check_no_key(self) -> None:
        """Installed with no key at all: the service serves weather from Open-Meteo and says so once."""
        r = self.ctl("search", "London")
        self.check("without any API key the service serves from Open-Meteo, credited in weatherctl's output",
                   r.returncode == 0 and r.stdout.startswith("London")
                   and "Weather data by Open-Meteo.com (CC BY 4.0)" in r.stdout.splitlines(), r.output)
        state = self.ctl("state")
        notices = [line for line in self.journal("-b", "-u", "weatherd.service", "-o", "cat").splitlines()
                   if "no OpenWeatherMap API key" in line]
        self.check("the state shows OpenWeatherMap without its key; the journal says how to add one, once",
                   state.returncode == 0 and "providers openweathermap (no API key), open-meteo ok" in state.stdout
                   and len(notices) == 1 and "LoadCredential=owm-api-key" in notices[0],
                   f"state: {state.output!r}; notices: {notices!r}")

    # -- the checks of the service under systemd

    def check_activation(self) -> None:
        before = self.systemctl("is-active", "weatherd.service").stdout.strip()
        r = self.served()
        after = self.systemctl("is-active", "weatherd.service").stdout.strip()
        self.check("socket activation: the first client starts weatherd.service",
                   before != "active" and r.returncode == 0 and after == "active",
                   f"before {before}, weatherctl state -> {r.returncode} {r.output!r}, after {after}")

    def check_status_text(self) -> None:
        status = self.systemctl("status", "weatherd.service", "--no-pager", "--lines=0")
        text = self.show("weatherd.service", "StatusText").get("StatusText", "")
        shown = re.search(r'^\s*Status: "(.*)"$', status.stdout, re.M)
        self.check("systemctl status shows the STATUS= text",
                   bool(text) and shown is not None and shown.group(1) == text and "serving" in text,
                   f"StatusText={text!r}; status line {shown.group(0).strip() if shown else None!r}")

    def check_search_and_locate(self) -> None:
        r = self.ctl("search", "London")
        self.check("weatherctl search London (owm-replay on the host's loopback, key through LoadCredential=)",
                   r.returncode == 0 and r.stdout.startswith("London"), r.output)
        r = self.ctl("locate", "--timeout", "20", timeout=40)
        self.check("weatherctl locate (gpsfake on the host's loopback)",
                   r.returncode == 0 and "Hamilton" in r.stdout, r.output)

    def check_cities_survive_restart(self) -> None:
        added = self.ctl("cities", "add", "Paris")
        inode = self.socket_inode()
        restart = self.systemctl("restart", "weatherd.service")
        after_restart = self.socket_inode()
        cities = self.ctl("cities")
        self.check("cities add survives systemctl restart weatherd",
                   added.returncode == 0 and restart.returncode == 0 and "Paris" in cities.stdout.splitlines(),
                   f"add -> {added.returncode} {added.output!r}; restart -> {restart.returncode} {restart.output!r}; "
                   f"cities after: {cities.output!r}")
        self.check("the socket file survives systemctl restart; the next client is served",
                   inode.startswith("socket") and after_restart == inode and cities.returncode == 0,
                   f"before {inode!r}, after {after_restart!r}")
        state = self.c.sh("ls -ld /var/lib/weatherd /var/lib/private/weatherd")
        self.check("the watched cities are stored in the DynamicUser= state directory",
                   state.returncode == 0 and "->" in state.stdout, state.output)

    def check_stop_keeps_socket(self) -> None:
        inode = self.socket_inode()
        stop = self.systemctl("stop", "weatherd.service")
        after = self.socket_inode()
        socket_state = self.systemctl("is-active", "weatherd.socket").stdout.strip()
        r = self.served()
        active = self.systemctl("is-active", "weatherd.service").stdout.strip()
        self.check("the socket survives systemctl stop weatherd.service; the next client re-activates it",
                   stop.returncode == 0 and after == inode and socket_state == "active" and r.returncode == 0
                   and active == "active",
                   f"socket before {inode!r}, after stop {after!r}, weatherd.socket {socket_state}; "
                   f"weatherctl state -> {r.returncode} {r.output!r}; service {active}")

    def crash(self, name: str, signal_name: str) -> None:
        """Kills the daemon with a signal and checks Restart=on-failure brings it back on the same socket."""
        self.served()
        pid, restarts, inode = self.main_pid(), self.n_restarts(), self.socket_inode()
        self.kill(signal_name, pid)
        back = self.wait_for(lambda: self.main_pid() not in (0, pid)
                             and self.systemctl("is-active", "weatherd.service").stdout.strip() == "active", 30)
        after = self.socket_inode()
        r = self.served()
        self.check(name,
                   bool(back) and self.n_restarts() == restarts + 1 and after == inode and r.returncode == 0,
                   f"pid {pid} -> {self.main_pid()}, NRestarts {restarts} -> {self.n_restarts()}, "
                   f"socket {inode!r} -> {after!r}, weatherctl state -> {r.returncode} {r.output!r}")

    def check_watchdog(self) -> None:
        dropin = self.c.file("/etc/systemd/system/weatherd.service.d/systest-watchdog.conf")
        dropin.parent.mkdir(parents=True, exist_ok=True)
        dropin.write_text("[Service]\nWatchdogSec=3s\n")
        self.systemctl("daemon-reload")
        self.systemctl("restart", "weatherd.service")
        since = self.c.run("date", "+@%s").stdout.strip()
        self.served()
        pid, restarts, inode = self.main_pid(), self.n_restarts(), self.socket_inode()
        self.kill("STOP", pid)
        back = self.wait_for(lambda: self.main_pid() not in (0, pid)
                             and self.systemctl("is-active", "weatherd.service").stdout.strip() == "active", 45, 0.5)
        after = self.socket_inode()
        r = self.served()
        timeout_logged = "Watchdog timeout" in self.journal("-u", "weatherd.service", f"--since={since}")
        self.check("a watchdog restart (SIGSTOP, WatchdogSec=3s drop-in) keeps the socket; the next client is served",
                   bool(back) and timeout_logged and self.n_restarts() >= restarts + 1 and after == inode
                   and r.returncode == 0,
                   f"pid {pid} -> {self.main_pid()}, watchdog timeout logged: {timeout_logged}, "
                   f"NRestarts {restarts} -> {self.n_restarts()}, socket {inode!r} -> {after!r}, "
                   f"weatherctl state -> {r.returncode} {r.output!r}")
        dropin.unlink()
        self.systemctl("daemon-reload")
        self.systemctl("restart", "weatherd.service")

    def check_socket_group(self) -> None:
        self.c.run("groupadd", "--system", "weatherd-users")
        self.c.run("useradd", "--system", "--no-create-home", "--groups", "weatherd-users", "wx-reader")
        self.c.run("useradd", "--system", "--no-create-home", "wx-other")
        dropin = self.c.file("/etc/systemd/system/weatherd.socket.d/systest-group.conf")
        dropin.parent.mkdir(parents=True, exist_ok=True)
        dropin.write_text("[Socket]\nSocketGroup=weatherd-users\n")
        self.systemctl("daemon-reload")
        self.systemctl("stop", "weatherd.service", "weatherd.socket")
        self.systemctl("start", "weatherd.socket")
        groups = [("after the socket started", self.socket_inode().split(" ")[-1])]
        first = self.served()
        groups.append(("after activation", self.socket_inode().split(" ")[-1]))
        self.systemctl("restart", "weatherd.service")
        self.served()
        groups.append(("after systemctl restart", self.socket_inode().split(" ")[-1]))
        self.kill("KILL", self.main_pid())
        self.wait_for(lambda: self.systemctl("is-active", "weatherd.service").stdout.strip() == "active", 20)
        groups.append(("after a crash", self.socket_inode().split(" ")[-1]))
        self.systemctl("stop", "weatherd.service")
        groups.append(("after systemctl stop", self.socket_inode().split(" ")[-1]))
        member = self.ctl("state", user="wx-reader")
        other = self.ctl("state", user="wx-other")
        self.check("a SocketGroup= drop-in keeps the socket's group across activation, restart, crash and stop",
                   first.returncode == 0 and all(g == "weatherd-users" for _, g in groups),
                   "; ".join(f"{when}: {g}" for when, g in groups))
        self.check("a member of the SocketGroup= group can connect, another user cannot",
                   member.returncode == 0 and other.returncode == 69,
                   f"member -> {member.returncode} {member.output!r}; other -> {other.returncode} {other.output!r}")
        dropin.unlink()
        self.systemctl("daemon-reload")
        self.systemctl("stop", "weatherd.service", "weatherd.socket")
        self.systemctl("start", "weatherd.socket")

    def check_reload(self, base_config: str) -> None:
        self.served()
        pid = self.main_pid()
        seen = []
        ok = True
        for cities in ('["London,GB", "Berlin,DE"]', '["London,GB"]', '["London,GB", "Tokyo,JP"]'):
            self.write_config(re.sub(r'(?m)^cities = .*$', f'cities = {cities}', base_config))
            reload = self.systemctl("reload", "weatherd.service")
            listed = self.ctl("cities")
            wanted = re.findall(r'"([^"]+)"', cities)
            now = [line.split(",")[0] for line in listed.stdout.splitlines()]
            good = reload.returncode == 0 and all(w.split(",")[0] in now for w in wanted) and \
                ("Berlin" in now) == ("Berlin,DE" in wanted) and ("Tokyo" in now) == ("Tokyo,JP" in wanted)
            ok &= good
            seen.append(f"cities = {cities}: reload -> {reload.returncode} in {reload.seconds:.2f} s, "
                        f"then weatherctl cities: {listed.stdout.split()!r}{'' if good else ' (wrong)'}")
        self.check("systemctl reload applies a changed configuration before it returns",
                   ok and self.main_pid() == pid, "\n".join(seen + [f"pid {pid} -> {self.main_pid()}"]))
        # A broken file: the reload fails and the running configuration stays.
        since = self.c.run("date", "+@%s").stdout.strip()
        self.write_config(base_config.replace("around = 1", "around = 5"))
        reload = self.systemctl("reload", "weatherd.service")
        active = self.systemctl("is-active", "weatherd.service").stdout.strip()
        listed = self.ctl("cities")
        reported = "region.around" in self.journal("-u", "weatherd.service", f"--since={since}", "-o", "cat")
        self.check("systemctl reload with a broken configuration fails, reports why, and the daemon keeps serving",
                   reload.returncode != 0 and reported and active == "active" and self.main_pid() == pid
                   and listed.returncode == 0,
                   f"reload -> {reload.returncode} {reload.output!r}; the journal names region.around: {reported}; "
                   f"service {active}; pid {pid} -> {self.main_pid()}; cities -> {listed.returncode}")
        self.write_config(base_config)
        self.systemctl("reload", "weatherd.service")

    def journal_mark(self) -> str:
        """The journal's cursor now (its newest entry), for died_since. A time would not do: `--since`
        takes whole seconds here, and the checks before kill the daemon on purpose within the same one."""
        shown = self.c.run("journalctl", "--no-pager", "-q", "-n", "1", "--show-cursor", timeout=60).stdout
        cursors = re.findall(r"(?m)^-- cursor: (\S+)$", shown)
        if not cursors:
            raise SetupError(f"journalctl --show-cursor printed no cursor: {shown!r}")
        return cursors[-1]

    def died_since(self, mark: str) -> list[str]:
        """systemd's lines about weatherd's main process ending on a signal or a core dump after the
        journal cursor `mark` (journal_mark)."""
        return [line for line in self.journal("-u", "weatherd.service", f"--after-cursor={mark}", "-o", "cat").splitlines()
                if re.search(r"code=(killed|dumped)|status=4/ILL|core-dump", line)]

    def check_reload_storm(self, base_config: str) -> None:
        """Reloads that change the cities, one after another, each followed by a client. With the
        forecast merge the static release build died with SIGILL in such reloads (a lookup's task
        memory taken over by another task); the debug build never did."""
        self.served()
        pid, restarts = self.main_pid(), self.n_restarts()
        mark = self.journal_mark()
        failed = []
        for i in range(20):
            cities = '["London,GB", "Berlin,DE"]' if i % 2 == 0 else '["London,GB"]'
            self.write_config(re.sub(r'(?m)^cities = .*$', f'cities = {cities}', base_config))
            reload = self.systemctl("reload", "weatherd.service")
            state = self.served()
            if reload.returncode != 0 or state.returncode != 0:
                failed.append(f"#{i}: reload -> {reload.returncode}, state -> {state.returncode} {state.output!r}")
        self.write_config(base_config)
        self.systemctl("reload", "weatherd.service")
        died = self.died_since(mark)
        self.check("20 reloads that change the cities, each followed by a client: one process serves them all",
                   not failed and not died and self.main_pid() == pid and self.n_restarts() == restarts,
                   "; ".join(failed[:3] + died[:3]) + f" pid {pid} -> {self.main_pid()}; "
                   f"restarts {restarts} -> {self.n_restarts()}")

    def check_start_storm(self) -> None:
        """Starts, each followed at once by clients (the same SIGILL came right after start). A death
        shows in the journal (NRestarts does not count here: reset-failed zeroes it)."""
        mark = self.journal_mark()
        failed = []
        for i in range(10):
            # Without it, systemd refuses the sixth start within 10 s (StartLimitBurst=5), and the
            # socket unit fails with the service.
            self.systemctl("reset-failed", "weatherd.service")
            restart = self.systemctl("restart", "weatherd.service")
            state, cities = self.served(), self.ctl("cities")
            if restart.returncode != 0 or state.returncode != 0 or cities.returncode != 0:
                failed.append(f"#{i}: restart -> {restart.returncode}, state -> {state.returncode}, "
                              f"cities -> {cities.returncode} {cities.output!r}")
        died = self.died_since(mark)
        self.systemctl("reset-failed", "weatherd.service")
        self.check("10 starts, each followed at once by clients: none dies",
                   not failed and not died, "; ".join(failed[:3] + died[:3]))

    def check_config_error(self, base_config: str) -> None:
        self.systemctl("stop", "weatherd.service")
        self.systemctl("reset-failed", "weatherd.service")
        restarts = self.n_restarts()
        since = self.c.run("date", "+@%s").stdout.strip()
        self.write_config(base_config.replace("around = 1", "around = 5"))
        start = self.systemctl("start", "weatherd.service")
        time.sleep(3)  # long enough for Restart=on-failure to have restarted it, were it going to
        props = self.show("weatherd.service", "ActiveState", "Result", "ExecMainStatus", "NRestarts")
        exited = [line for line in self.journal("-u", "weatherd.service", f"--since={since}", "-o", "cat").splitlines()
                  if "Main process exited" in line]
        errors = self.journal("-u", "weatherd.service", "-p", "err", f"--since={since}", "-o", "cat")
        self.check("a configuration error is status=78/CONFIG and is not restarted",
                   start.returncode != 0 and props.get("ActiveState") == "failed" and props.get("ExecMainStatus") == "78"
                   and any("status=78/CONFIG" in line for line in exited) and int(props.get("NRestarts", "0")) == restarts,
                   f"start -> {start.returncode}; {props}; systemd: {exited!r}")
        self.check("the configuration error shows under journalctl -p err",
                   "region.around" in errors, f"journalctl -p err -u weatherd: {errors.strip()!r}")
        self.write_config(base_config)
        self.systemctl("reset-failed", "weatherd.service")
        r = self.served()
        self.check("after the fix and reset-failed the next client activates it again", r.returncode == 0, r.output)

    def check_stop_time(self) -> None:
        served = self.served()
        watcher = self.c.popen("weatherctl", "--socket", SOCKET, "watch")
        time.sleep(1)
        if served.returncode != 0 or watcher.poll() is not None:
            self.check("systemctl stop within a second (a watcher connected)", False,
                       f"no running daemon to stop: weatherctl state -> {served.returncode} {served.output!r}; "
                       f"the watcher ended with {watcher.poll()}")
            return
        stop = self.systemctl("stop", "weatherd.service")
        with contextlib.suppress(subprocess.TimeoutExpired):
            watcher.wait(timeout=5)
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
        self.check("systemctl stop within a second (a watcher connected)",
                   stop.returncode == 0 and stop.seconds < 1.0,
                   f"{stop.seconds:.2f} s; the watcher ended with {watcher.returncode}")
        self.served()

    def check_journal(self) -> None:
        text = self.journal("-b", "-u", "weatherd.service", "-u", "weatherd.socket", "-o", "short-monotonic")
        (self.logs / "journal-weatherd.txt").write_text(text)
        whole = self.journal("-b", "-o", "short-monotonic")
        (self.logs / "journal.txt").write_text(whole)
        bad = [line for line in text.splitlines()
               if re.search(r"status=31/SYS|seccomp|EACCES|Failed to set thread priority|errno=1\b", line)]
        self.check("no seccomp kill, no EACCES and no 'Failed to set thread priority' in the journal",
                   not bad, f"{len(bad)} lines, e.g.\n" + "\n".join(bad[:5]) if bad else "")
        doubled = [line for line in self.journal("-b", "-t", "weatherd", "-o", "cat").splitlines()
                   if line.startswith("weatherd:")]
        self.check("the daemon's journal lines do not repeat its name",
                   not doubled, f"{len(doubled)} lines, e.g. {doubled[:3]!r}" if doubled else "")

    def check_geoclue(self, base_config: str) -> None:
        """geoclue.enabled under the hardened unit, through the system bus (/run/dbus/system_bus_socket) to
        Debian's GeoClue. Debian 12's dbus-daemon refuses connections from a DynamicUser= (any such
        process: "Transport endpoint is not connected"), so docs/geoclue.md tells the operator to run weatherd
        as a static system user for GeoClue; this check applies that drop-in and keeps the rest of the
        sandbox. With Debian's geoclue.conf GeoClue refuses weatherd as an agent (one journal line saying
        what to add); with weatherd whitelisted and allowed, its client starts. Everything is put back
        afterwards."""
        r = self.c.sh("apt-get install -y -q --no-install-recommends geoclue-2.0", timeout=900)
        if not self.check("apt-get install geoclue-2.0 in the container", r.returncode == 0, r.output[-2000:]):
            return
        enabled, n = re.subn(r"(?m)^(\[geoclue\]\n(?:#.*\n)*)enabled = false$", r"\1enabled = true", base_config)
        if n != 1:
            raise SetupError(f"the installed weatherd.toml has {n} [geoclue] tables with enabled = false, not 1")
        dropin = self.c.file("/etc/systemd/system/weatherd.service.d/geoclue.conf")
        user = self.c.sh("useradd --system --no-create-home --shell /usr/sbin/nologin weatherd")
        dropin.parent.mkdir(parents=True, exist_ok=True)
        dropin.write_text("[Service]\nDynamicUser=no\nUser=weatherd\nGroup=weatherd\n")
        self.systemctl("daemon-reload")
        self.write_config(enabled)
        mark = self.journal_mark()
        self.systemctl("restart", "weatherd.service")
        refused = "GeoClue does not accept weatherd as its agent"
        lines = self.wait_for(lambda: [line for line in self.journal("-u", "weatherd.service", "-o", "cat", f"--after-cursor={mark}").splitlines()
                                       if refused in line], 60)
        state = self.ctl("state", "--json")
        self.check("geoclue.enabled (static user) with Debian's geoclue.conf: GeoClue answers through the sandbox and refuses; "
                   "one journal line says what to add to /etc/geoclue/geoclue.conf; the service serves on",
                   user.returncode == 0 and lines is not None and len(lines) == 1 and "[agent] whitelist=" in lines[0]
                   and state.returncode == 0
                   and re.search(r'"name":\s*"geoclue",\s*"enabled":\s*true,\s*"connected":\s*false', state.stdout) is not None,
                   f"useradd {user.output!r}; lines {lines!r}; journal "
                   f"{self.journal('-u', 'weatherd.service', '-o', 'cat', f'--after-cursor={mark}')[-800:]!r}; state {state.output[-400:]!r}")
        conf = self.c.file("/etc/geoclue/geoclue.conf")
        original = conf.read_text()
        conf.write_text(re.sub(r"(?m)^(whitelist=.*)$", r"\1;weatherd", original, count=1)
                        + "\n[weatherd]\nallowed=true\nsystem=true\nusers=\n")
        mark = self.journal_mark()
        self.systemctl("restart", "geoclue.service")
        started = "GeoClue: client started as weatherd"
        seen = self.wait_for(lambda: started in self.journal("-u", "weatherd.service", "-o", "cat", f"--after-cursor={mark}"), 90)
        state = self.ctl("state", "--json")
        self.check("with weatherd whitelisted as GeoClue's agent and allowed, its client starts (retried after the refusal)",
                   bool(seen) and re.search(r'"name":\s*"geoclue",\s*"enabled":\s*true,\s*"connected":\s*true', state.stdout) is not None,
                   self.journal("-u", "weatherd.service", "-o", "cat", f"--after-cursor={mark}")[-1500:] + f"\nstate {state.output[-800:]!r}")
        conf.write_text(original)
        dropin.unlink()
        self.systemctl("daemon-reload")
        self.write_config(base_config)
        self.systemctl("restart", "weatherd.service")
        self.c.sh("userdel weatherd")

    def check_security(self) -> None:
        r = self.c.run("systemd-analyze", "security", "--no-pager", "weatherd.service", timeout=60)
        m = re.search(r"Overall exposure level for weatherd.service: ([0-9.]+)", r.stdout)
        self.check("systemd-analyze security weatherd.service: exposure at most 1.5",
                   m is not None and float(m.group(1)) <= 1.5, m.group(0) if m else r.output[-500:])

    def check_upgrade(self, base_config: str, upgrade_deb: Path) -> None:
        self.served()
        pid = self.main_pid()
        shutil.copy(upgrade_deb, self.c.file(f"/root/{upgrade_deb.name}"))
        r = self.c.sh(f"cd /root && apt-get install -y -q --no-install-recommends ./{upgrade_deb.name}", timeout=600)
        version = self.c.run("dpkg-query", "-W", "-f=${Version}", "weatherd").stdout
        kept = self.config_path().read_text() == base_config
        new_pid = self.main_pid()
        active = self.systemctl("is-active", "weatherd.service", "weatherd.socket").stdout.split()
        served = self.ctl("cities")
        self.check("an upgrade keeps the edited configuration and restarts the running service",
                   r.returncode == 0 and version.endswith("systest1") and kept and new_pid not in (0, pid)
                   and active == ["active", "active"] and "Paris" in served.stdout,
                   f"apt-get -> {r.returncode}; version {version}; config kept: {kept}; pid {pid} -> {new_pid}; "
                   f"units {active}; cities {served.stdout.split()!r}" + (f"\n{r.output[-2000:]}" if r.returncode else ""))

    def check_purge(self) -> None:
        r = self.c.run("apt-get", "purge", "-y", "-q", "weatherd", timeout=300)
        left = self.c.sh("ls -d /var/lib/private/weatherd /var/lib/weatherd /etc/weatherd/weatherd.toml "
                         "/lib/systemd/system/weatherd.socket /etc/systemd/system/sockets.target.wants/weatherd.socket "
                         f"{SOCKET} 2>/dev/null; grep -lx weatherd /proc/[0-9]*/comm 2>/dev/null; true").stdout.split()
        key_kept = self.c.file("/etc/weatherd/owm-api-key").exists()
        self.check("apt-get purge stops the units and removes their state and configuration (the key file is the admin's)",
                   r.returncode == 0 and not left and key_kept,
                   f"purge -> {r.returncode}; left behind: {left!r}; key file kept: {key_kept}"
                   + (f"\n{r.output[-2000:]}" if r.returncode else ""))


def upgrade_package(deb: Path, workdir: Path) -> Path:
    """The same package with a higher version, for the upgrade check (fast compression)."""
    tree = workdir / "upgrade"
    shutil.rmtree(tree, ignore_errors=True)
    subprocess.run(["dpkg-deb", "-R", str(deb), str(tree)], check=True)
    control = tree / "DEBIAN/control"
    text = control.read_text()
    version = re.search(r"(?m)^Version: (.*)$", text).group(1)
    control.write_text(text.replace(f"Version: {version}", f"Version: {version}+systest1"))
    out = workdir / f"weatherd_{version}+systest1_amd64.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-Zgzip", "-z1", "--build", str(tree), str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    shutil.rmtree(tree)
    return out


# ---------------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deb-dir", default=str(REPO / ".build/deb"), help="where make deb put weatherd_*.deb")
    parser.add_argument("--bin-dir", default=str(REPO / ".build/release"), help="where owm-replay is")
    parser.add_argument("--logs", default=str(REPO / ".build/systest"), help="logs of the run")
    parser.add_argument("--keep", action="store_true", help="keep the container's root after the run")
    args = parser.parse_args()
    if os.geteuid() != 0:
        log("systest: needs root (debootstrap, systemd-nspawn, nsenter)")
        log("systest: 0 passed, 1 failed")
        return 2

    started = time.monotonic()
    report = Report()
    logs = Path(args.logs)
    logs.mkdir(parents=True, exist_ok=True)
    debs = sorted(glob.glob(os.path.join(args.deb_dir, "weatherd_*.deb")))
    cleanups: list = []

    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    signal.signal(signal.SIGTERM, on_signal)

    try:
        if len(debs) != 1:
            raise SetupError(f"expected one weatherd_*.deb in {args.deb_dir} (make deb), found {debs}")
        deb = Path(debs[0])
        version = subprocess.run(["dpkg-deb", "--field", str(deb), "Version"], capture_output=True, text=True,
                                 check=True).stdout.strip()
        log(f"systest: {deb.name} under systemd-nspawn ({SUITE})")

        mirror = debian_mirror()
        pristine = cached_root(mirror)
        for stale in CACHE.glob("run-*"):  # copies left by runs that were killed before their clean-up
            if time.time() - stale.stat().st_mtime > 6 * 3600:
                shutil.rmtree(stale, ignore_errors=True)
        run_dir = Path(tempfile.mkdtemp(prefix="run-", dir=CACHE))
        cleanups.append(lambda: None if args.keep else shutil.rmtree(run_dir, ignore_errors=True))
        root = run_dir / "root"
        t = time.monotonic()
        subprocess.run(["cp", "-a", "--reflink=auto", str(pristine), str(root)], check=True)
        log(f"root: fresh copy in {time.monotonic() - t:.1f} s: {root}")
        upgrade_deb = upgrade_package(deb, run_dir)

        # The stand-ins on the host's loopback.
        replay = subprocess.Popen(
            [os.path.join(args.bin_dir, "owm-replay"), "--host", "127.0.0.1", "--port", "0",
             "--data", str(REPO / "demo/owm"), "--api-key", API_KEY],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=open(logs / "owm-replay.log", "w"), text=True)
        cleanups.append(lambda: (replay.terminate(), replay.wait(timeout=10)))
        first = replay.stdout.readline().strip()
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", first)
        if not m:
            raise SetupError(f"owm-replay did not start: {first!r}")
        owm_port = int(m.group(1))
        gpsd_port = free_port()
        gpsfake = start_gpsfake(gpsd_port, logs / "gpsfake.log")
        cleanups.append(lambda: (os.killpg(gpsfake.pid, signal.SIGKILL), gpsfake.wait(timeout=10)))
        log(f"host: owm-replay on 127.0.0.1:{owm_port}, gpsfake (gpsd) on 127.0.0.1:{gpsd_port}")

        # Boot. Downloaded packages are kept between runs on the host.
        archives = CACHE / "apt-archives"
        (archives / "partial").mkdir(parents=True, exist_ok=True)
        t = time.monotonic()
        container = Container(root, f"weatherd-systest-{os.getpid()}", [f"{archives}:/var/cache/apt/archives"],
                              logs / "console.log")
        cleanups.append(container.stop)
        state = container.wait_booted(120)
        log(f"container: systemd PID {container.pid} on the host, booted in {time.monotonic() - t:.1f} s ({state})")

        test = SysTest(container, report, deb, version, owm_port, gpsd_port, logs)
        t = time.monotonic()
        with open(CACHE / "apt-lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # the shared archive cache, one apt at a time
            installed = test.install()
        log(f"install: {time.monotonic() - t:.1f} s")
        if installed:
            base_config = test.configure()
            test.check_activation()
            test.check_status_text()
            test.check_no_key()
            test.add_key()
            test.check_search_and_locate()
            test.check_cities_survive_restart()
            test.check_stop_keeps_socket()
            test.check_watchdog()
            test.crash("a crash (SIGSEGV) is restarted on the same socket; the next client is served", "SEGV")
            test.crash("a crash (SIGKILL) is restarted on the same socket; the next client is served", "KILL")
            test.check_socket_group()
            test.check_reload(base_config)
            test.check_reload_storm(base_config)
            test.check_start_storm()
            test.check_config_error(base_config)
            test.check_stop_time()
            test.check_geoclue(base_config)
            test.check_security()
            test.check_journal()
            test.check_upgrade(base_config, upgrade_deb)
            test.check_purge()
    except SetupError as error:
        report.check("set-up", False, str(error))
    except KeyboardInterrupt as error:
        report.check("set-up", False, f"interrupted ({error})")
    finally:
        for cleanup in reversed(cleanups):
            with contextlib.suppress(Exception):
                cleanup()
    log(f"systest: {time.monotonic() - started:.0f} s; logs in {logs}")
    log(f"systest: {len(report.passed)} passed, {len(report.failed)} failed")
    return 0 if not report.failed else 1


if __name__ == "__main__":
    sys.exit(main())
