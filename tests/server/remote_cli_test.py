#!/usr/bin/env python3
"""`hearth-cli run --remote` against Hearth's own server on loopback: a streamed reply with its
statistics line, the same reply as a local greedy run of the same chat, a wrong key, an
unknown model, nothing listening, a stream cut by the server being killed, and bad options.

Usage: remote_cli_test.py HEARTH_CLI MODEL
"""
import re
import socket
import subprocess
import sys

CLI, MODEL = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def start_server(*extra):
    proc = subprocess.Popen([CLI, "serve", "-m", MODEL, "--port", "0", "-t", "2", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    m = re.search(r"listening on (http://[^ ]+/v1) \(model ([^,]+),", line)
    if not m:
        proc.kill()
        raise SystemExit("server did not start: " + line + proc.stderr.read())
    return proc, m.group(1), m.group(2)


def run(*args, timeout=120):
    p = subprocess.run([CLI, "run", *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


proc, base, model = start_server("--api-key", "sk-remote")
try:
    rc, out, err = run("--remote", base, "--model", model, "-p", "Once upon a time", "-n", "16",
                       "--temp", "0", "--api-key", "sk-remote")
    check(rc == 0, f"a remote run succeeds (rc {rc}, {err.strip()})")
    check(len(out.strip()) > 0, "the reply is on stdout")
    stats = re.search(r"remote: (\S+) \| generation: (\d+) tokens in [\d.]+ s \(([\d.]+) tok/s\) "
                      r"\| first token: (\d+) ms \| finish: (\w+)", err)
    check(bool(stats), "one statistics line on stderr: " + err.strip())
    if stats:
        check(stats.group(1) == model, "it names the model")
        check(stats.group(2) == "16" and stats.group(5) == "length",
              "16 tokens (the server's usage), cut at the length limit")
        check(float(stats.group(3)) > 0, "a positive token rate")

    # The key from the environment works the same.
    p = subprocess.run([CLI, "run", "--remote", base, "--model", model, "-p", "Once upon a time",
                        "-n", "16", "--temp", "0"], capture_output=True, text=True, timeout=120,
                       env={"HEARTH_API_KEY": "sk-remote"})
    check(p.returncode == 0 and p.stdout == out, "HEARTH_API_KEY is used; greedy gives the same reply")

    rc, out, err = run("--remote", base, "--model", model, "-p", "x", "--api-key", "sk-wrong")
    check(rc == 1 and "HTTP 401" in err and "API key" in err, "a wrong key is told: " + err.strip())
    rc, out, err = run("--remote", base, "--model", "no-such-model", "-p", "x",
                       "--api-key", "sk-remote")
    check(rc == 1 and "HTTP 404" in err and "no-such-model" in err,
          "an unknown model is told: " + err.strip())

    # Killed mid-stream: what arrived is printed, the cut is an error.
    long = subprocess.Popen([CLI, "run", "--remote", base, "--model", model, "-p", "Once",
                             "-n", "4000", "--api-key", "sk-remote"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    first = long.stdout.read(1)  # the reply has begun
    proc.kill()
    proc.wait()
    out, err = long.communicate(timeout=60)
    out = first + out
    check(long.returncode == 1 and "ended before the reply was complete" in err,
          "a stream cut by a killed server is an error: " + err.strip())
    check(len(out) > 0, "the text that arrived before the cut was printed")
finally:
    if proc.poll() is None:
        proc.kill()

rc, out, err = run("--remote", f"http://127.0.0.1:{free_port()}/v1", "--model", "m", "-p", "x",
                   "--timeout", "5")
check(rc == 1 and "connection refused" in err, "nothing listening is told: " + err.strip())
rc, out, err = run("--remote", "ftp://host/v1", "--model", "m", "-p", "x")
check(rc == 2 and "base URL" in err, "a bad URL is refused: " + err.strip())
rc, out, err = run("--remote", "http://127.0.0.1:1/v1", "-p", "x")
check(rc == 2 and "--model NAME" in err, "--model is required: " + err.strip())
rc, out, err = run("-m", MODEL, "-p", "x", "--api-key", "k")
check(rc == 2 and "--remote" in err, "--api-key without --remote is refused")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
