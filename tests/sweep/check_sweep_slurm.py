#!/usr/bin/env python3
"""`systole sweep --executor slurm` on a real single-node Slurm cluster
(munged, slurmctld, slurmd started here with a generated slurm.conf on
localhost) gives the same CSV as the local executor on the same points."""
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from sweeplib import fail, require, run  # noqa: E402

systole, models, work = sys.argv[1:4]
munged = require("munged", "munge")
slurmctld = require("slurmctld", "slurmctld (slurm-wlm)")
slurmd = require("slurmd", "slurmd (slurm-wlm)")
require("sbatch", "slurm-client (slurm-wlm)")
sinfo = require("sinfo", "slurm-client (slurm-wlm)")
if os.geteuid() != 0:
    fail("the Slurm test starts slurmd, which needs root (CI runs as root)")

shutil.rmtree(work, ignore_errors=True)
state = f"{work}/cluster"
for d in ("spool", "state", "log", "munge"):
    os.makedirs(f"{state}/{d}")
host = socket.gethostname().split(".")[0]
cpus = os.cpu_count() or 1
sock = f"{state}/munge/munge.socket"
key = f"{state}/munge/munge.key"
with open(key, "wb") as f:
    f.write(os.urandom(1024))
os.chmod(key, 0o400)
base = 26817 + os.getpid() % 1000 * 2
conf = f"{state}/slurm.conf"
with open(conf, "w") as f:
    f.write(f"""ClusterName=systole-test
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={base}
SlurmdPort={base + 1}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
SlurmUser=root
SlurmdUser=root
StateSaveLocation={state}/state
SlurmdSpoolDir={state}/spool
SlurmctldPidFile={state}/slurmctld.pid
SlurmdPidFile={state}/slurmd.pid
SlurmctldLogFile={state}/log/slurmctld.log
SlurmdLogFile={state}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
ReturnToService=2
MpiDefault=none
NodeName={host} NodeAddr=127.0.0.1 CPUs={cpus} State=UNKNOWN
PartitionName=systole Nodes={host} Default=YES MaxTime=INFINITE State=UP
""")
env = dict(os.environ, SLURM_CONF=conf)
procs = []


def stop():
    for p in reversed(procs):
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()


def logs():
    out = ""
    for n in ("slurmctld", "slurmd"):
        p = f"{state}/log/{n}.log"
        if os.path.exists(p):
            out += f"--- {n}.log\n" + open(p).read()[-3000:]
    return out


try:
    t0 = time.time()
    procs.append(subprocess.Popen([munged, "-F", "--force", f"--socket={sock}",
                                   f"--key-file={key}", f"--pid-file={state}/munge/munged.pid",
                                   f"--log-file={state}/log/munged.log",
                                   f"--seed-file={state}/munge/seed"], env=env))
    for _ in range(100):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    else:
        fail("munged did not create its socket")
    procs.append(subprocess.Popen([slurmctld, "-D", "-i", "-f", conf], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    procs.append(subprocess.Popen([slurmd, "-D", "-f", conf, "-N", host], env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    for _ in range(300):
        r = subprocess.run([sinfo, "-h", "-o", "%T"], env=env, capture_output=True, text=True)
        if r.returncode == 0 and r.stdout.strip() in ("idle", "mixed", "allocated"):
            break
        time.sleep(0.2)
    else:
        fail("the Slurm node did not become idle\n" + logs())
    print(f"cluster up in {time.time() - t0:.1f} s: node {host}, {cpus} CPUs")

    model = f"{models}/digits/digits_int8_qdq.onnx"
    args = ["--model", model, "--array", "8x8,16x16", "--sram", "64K,256K",
            "--dram-bw", "8,32"]
    t = time.time()
    r = run([systole, "sweep", *args, "--out", f"{work}/slurm", "--executor", "slurm"], env=env)
    print(r.stdout + r.stderr + f"slurm sweep: {time.time() - t:.1f} s")
    import re
    outs = [f for f in os.listdir(f"{work}/slurm/slurm") if re.fullmatch(r"\d+_\d+\.out", f)]
    if len(outs) != 8:
        fail(f"expected 8 job-array task logs, found {len(outs)}\n" + logs())
    run([systole, "sweep", *args, "--out", f"{work}/local", "-j", "2", "-q"])
    a = open(f"{work}/slurm/sweep.csv").read()
    b = open(f"{work}/local/sweep.csv").read()
    if a != b:
        fail("Slurm CSV differs from the local CSV:\n" + a + "\n---\n" + b)
    if a.count("\n") != 9:
        fail("expected a header and 8 rows")
    print("PASS: Slurm and local CSVs are identical (8 points)")
finally:
    stop()
