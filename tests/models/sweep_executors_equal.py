#!/usr/bin/env python3
"""`tpuc sweep` on both executors: a small sweep (two small models, F16 and INT8, bm1684x) on the local
process pool, then the same sweep on a real single-node Slurm cluster (Debian's munge, slurmctld and slurmd,
started here with a slurm.conf and munge key in a temporary folder, as root, and stopped after, also on
failure). Both reports must be identical apart from timings and memory. Then resuming: a re-run skips the
finished cells, a cell whose record says "error" runs again (attempts 2), a Slurm re-run submits only the
cell whose record is gone, and --compare against a sweep with a better past flags the regression first.

usage: sweep_executors_equal.py TPUC WORKDIR
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

TIMING_KEYS = {"compile_seconds", "seconds", "peak_rss_kb", "wall_seconds", "executor"}


def fail(message):
    print("sweep_executors_equal: FAIL: " + message, file=sys.stderr)
    sys.exit(1)


def run(argv, env=None, expect=None):
    print("+ " + " ".join(argv), flush=True)
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(p.stdout, end="", flush=True)
    if expect is not None and p.returncode not in expect:
        fail(f"{argv[0]} {argv[1]} exited {p.returncode}, expected {sorted(expect)}")
    return p


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in TIMING_KEYS}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """munged + slurmctld + slurmd with their own config, sockets, state and logs under `root`."""

    def __init__(self, root):
        self.root = root
        os.chmod(root, 0o755)  # munged wants its socket's folders searchable by all
        for d in ("munge", "run", "state", "spool", "log"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        os.chmod(os.path.join(root, "munge"), 0o700)
        self.key = os.path.join(root, "munge", "munge.key")
        with open(self.key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(self.key, 0o400)
        self.socket = os.path.join(root, "run", "munge.sock")
        self.conf = os.path.join(root, "slurm.conf")
        host = socket.gethostname().split(".")[0]
        cpus = os.cpu_count() or 1
        r = lambda *p: os.path.join(root, *p)
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=tpucsweep
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.socket}
StateSaveLocation={r('state')}
SlurmdSpoolDir={r('spool')}
SlurmctldPidFile={r('run', 'slurmctld.pid')}
SlurmdPidFile={r('run', 'slurmd.pid')}
SlurmctldLogFile={r('log', 'slurmctld.log')}
SlurmdLogFile={r('log', 'slurmd.log')}
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=sweep Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.pidfiles = [r("run", "slurmd.pid"), r("run", "slurmctld.pid"), r("run", "munged.pid")]

    def start(self):
        r = lambda *p: os.path.join(self.root, *p)
        steps = [
            (["munged", f"--socket={self.socket}", f"--key-file={self.key}", f"--log-file={r('log', 'munged.log')}",
              f"--pid-file={r('run', 'munged.pid')}", f"--seed-file={r('munge', 'munged.seed')}"], "munged.log"),
            (["slurmctld", "-f", self.conf, "-i"], "slurmctld.log"),
            (["slurmd", "-f", self.conf], "slurmd.log"),
        ]
        for argv, log in steps:
            p = subprocess.run(argv, env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                fail(f"{argv[0]} did not start (exit {p.returncode}): {p.stdout.strip()} {self.tail(log)}")
        deadline = time.time() + 60
        while time.time() < deadline:
            p = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode == 0 and p.stdout.strip() == "idle":
                print("cluster up: " + subprocess.run(["sinfo"], env=self.env, stdout=subprocess.PIPE,
                                                      text=True).stdout, flush=True)
                return
            time.sleep(0.5)
        fail("the Slurm node did not become idle in 60 s: " + self.tail("slurmctld.log") + self.tail("slurmd.log"))

    def tail(self, log):
        try:
            with open(os.path.join(self.root, "log", log)) as f:
                return f"\n--- {log}:\n" + "".join(f.readlines()[-15:])
        except OSError:
            return ""

    def stop(self):
        for pidfile in self.pidfiles:
            try:
                with open(pidfile) as f:
                    pid = int(f.read().strip())
            except (OSError, ValueError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                continue
            for _ in range(100):
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.1)
            else:
                os.kill(pid, signal.SIGKILL)


def main():
    tpuc, work = os.path.realpath(sys.argv[1]), sys.argv[2]
    assets = os.environ.get("TPUC_ASSETS", os.path.expanduser("~/.cache/tpu-studio/assets"))
    models, images = os.path.join(assets, "models"), os.path.join(assets, "images")
    for f in ("models/ch_ppocr_mobile_v2.0_cls_infer.onnx", "models/squeezenet1_1.onnx", "images/dog.jpg"):
        if not os.path.exists(os.path.join(assets, f)):
            fail(f"{assets}/{f} is missing: run scripts/fetch-assets.sh")
    if os.geteuid() != 0:
        fail("the Slurm half starts munged, slurmctld and slurmd as root: run as root (CI does)")
    for program in ("munged", "slurmctld", "slurmd", "sbatch", "sinfo"):
        if shutil.which(program) is None:
            fail(f"{program} is not installed: scripts/setup.sh installs munge, slurmctld, slurmd, slurm-client")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "cal"))
    for name in ("dog.jpg", "eagle.jpg", "giraffe.jpg", "horses.jpg", "kite.jpg", "person.jpg"):
        shutil.copy(os.path.join(images, name), os.path.join(work, "cal"))
    manifest = {
        "name": "ci-small",
        "precisions": ["F16", "INT8"],
        "chips": ["bm1684x"],
        "slurm": {"cpus_per_task": 1},
        "models": [
            {"name": "ppocr_cls",
             "transform": {"model_def": os.path.join(models, "ch_ppocr_mobile_v2.0_cls_infer.onnx"),
                           "input_shapes": [[1, 3, 48, 192]], "mean": [127.5] * 3, "scale": [0.0078431] * 3,
                           "keep_aspect_ratio": True, "test_input": os.path.join(images, "page.png")},
             "calibrate": {"dataset": "cal", "input_num": 6}},
            {"name": "squeezenet1_1",
             "transform": {"model_def": os.path.join(models, "squeezenet1_1.onnx"),
                           "input_shapes": [[1, 3, 224, 224]], "mean": [123.675, 116.28, 103.53],
                           "scale": [0.0171, 0.0175, 0.0174], "pixel_format": "rgb",
                           "test_input": os.path.join(images, "dog.jpg")},
             "calibrate": {"dataset": "cal", "input_num": 6},
             "tolerance": {"INT8": "0.85,0.5"}},
        ],
    }
    manifest_path = os.path.join(work, "manifest.json")
    with open(manifest_path, "w") as f:
        json.dump(manifest, f, indent=1)
    local, slurm = os.path.join(work, "local"), os.path.join(work, "slurm")

    # The local pool. ppocr_cls INT8 calibrated on photos misses the per-layer tolerance (its README): exit 1.
    run([tpuc, "sweep", manifest_path, "--jobs", "2", "--out", local], expect={0, 1})
    local_report = json.load(open(os.path.join(local, "report.json")))
    statuses = {(c["model"], c["precision"]): c["status"] for c in local_report["cells"]}
    print("local statuses:", statuses)
    if len(local_report["cells"]) != 4 or any(s not in ("passed", "failed") for s in statuses.values()):
        fail(f"expected 4 finished cells, got {statuses}")
    for c in local_report["cells"]:
        if c["status"] == "passed" and not (c["latency_ms"] > 0 and c["outputs"] and c["peak_rss_kb"] > 0):
            fail(f"cell {c['index']}: a passed cell without latency, outputs or peak RSS")
    html = open(os.path.join(local, "report.html")).read()
    if html.count("<tr class=") != 4:
        fail("report.html does not hold one row per cell")

    # Resume: nothing to run again; a cell whose record says "error" runs again.
    p = run([tpuc, "sweep", manifest_path, "--jobs", "2", "--out", local], expect={0, 1})
    if "4 already finished, 0 to run" not in p.stdout:
        fail("a re-run of a finished sweep ran cells again")
    record_path = os.path.join(local, "cells", "2.json")
    record = json.load(open(record_path))
    record["status"], record["stage"], record["message"] = "error", "deploy", "planted by the test"
    json.dump(record, open(record_path, "w"))
    p = run([tpuc, "sweep", manifest_path, "--jobs", "2", "--out", local], expect={0, 1})
    rerun = json.load(open(record_path))
    if "3 already finished, 1 to run" not in p.stdout or rerun["attempts"] != 2 or rerun["status"] == "error":
        fail(f"the error cell was not run again (attempts {rerun['attempts']}, status {rerun['status']})")

    # The same sweep as one Slurm job array on a cluster of this machine.
    cluster_root = tempfile.mkdtemp(prefix="tpuc-slurm-")
    cluster = Cluster(cluster_root)
    try:
        cluster.start()
        run([tpuc, "sweep", manifest_path, "--executor", "slurm", "--out", slurm, "--partition", "sweep"],
            env=cluster.env, expect={0, 1})
        slurm_report = json.load(open(os.path.join(slurm, "report.json")))
        if not os.path.exists(os.path.join(slurm, "slurm", "cell-0.log")):
            fail("no Slurm task log: the cells did not run as array tasks")
        # Resumable on Slurm too: only the cell whose record is gone is submitted.
        os.remove(os.path.join(slurm, "cells", "3.json"))
        p = run([tpuc, "sweep", manifest_path, "--executor", "slurm", "--out", slurm], env=cluster.env,
                expect={0, 1})
        if "sbatch --array=3 (1 tasks)" not in p.stdout:
            fail("the Slurm re-run did not submit exactly the missing cell")
        slurm_report = json.load(open(os.path.join(slurm, "report.json")))
    finally:
        cluster.stop()
        shutil.rmtree(cluster_root, ignore_errors=True)

    # Identical apart from timings (the run folders are relative to each sweep folder). The local
    # re-run's cell 2 says attempts 2; that is the resume, not the executor.
    local_report = json.load(open(os.path.join(local, "report.json")))
    for c in local_report["cells"]:
        c["attempts"] = 1
    a, b = without_timings(local_report), without_timings(slurm_report)
    if a != b:
        for ca, cb in zip(a["cells"], b["cells"]):
            if ca != cb:
                print("local:", json.dumps(ca, sort_keys=True), "\nslurm:", json.dumps(cb, sort_keys=True))
        fail("the local and Slurm reports differ beyond timings")
    print(f"local and Slurm reports identical apart from timings ({len(a['cells'])} cells)")

    # --compare: against a past where squeezenet1_1 F16 was faster and more accurate.
    past = json.load(open(os.path.join(local, "report.json")))
    for c in past["cells"]:
        if c["model"] == "squeezenet1_1" and c["precision"] == "F16":
            c["latency_ms"] *= 0.5
    past_path = os.path.join(work, "past.json")
    json.dump(past, open(past_path, "w"))
    run([tpuc, "sweep", manifest_path, "--out", local, "--compare", past_path], expect={1})
    compared = json.load(open(os.path.join(local, "report.json")))
    first = compared["cells"][0]
    if not (first["model"] == "squeezenet1_1" and first["precision"] == "F16" and first["latency_regression"]
            and compared["regressions"] == 1):
        fail("the latency regression is not flagged first: " + json.dumps(first))
    print("sweep_executors_equal: PASS")


if __name__ == "__main__":
    main()
