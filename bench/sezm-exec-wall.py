"""Where sezm-exec's wall time goes, outside the kernels: on a GPU machine,
builds the N-atom workload and runs rotate_mix_kept of the SO(2) kernels'
artifact through the sezm-exec of each BIN_DIR (20 timed runs, outputs
written as files, then without files, then one run alone), printing wall,
user and system seconds and minor page faults of each, and checks that every
BIN_DIR's sezm-exec wrote the same output bytes.

  sezm-exec-wall.py N SO2_KERNELS.sezm BIN_DIR [BIN_DIR ...]
"""
import filecmp
import os
import resource
import shutil
import subprocess
import sys
import time


def run(label, command):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    began = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - began
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(f"{label:48s} wall {wall:6.1f} s  user "
          f"{after.ru_utime - before.ru_utime:5.1f} s  sys "
          f"{after.ru_stime - before.ru_stime:5.1f} s  page faults "
          f"{after.ru_minflt - before.ru_minflt}", flush=True)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    atoms, library, bin_dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    scratch = "/dev/shm" if os.access("/dev/shm", os.W_OK) else "/tmp"
    work = f"{scratch}/sezm-exec-wall-{atoms}"
    run("make-so2-workload", [bin_dirs[0] + "/make-so2-workload", atoms, work])
    inputs = []
    for name in ["x", "src", "wigner_kept", "kc", "cb"]:
        inputs += ["--input", f"{name}={work}/{name}.npy"]
    written = []
    for k, bin_dir in enumerate(bin_dirs):
        command = [bin_dir + "/sezm-exec", library, "--entry",
                   "rotate_mix_kept"] + inputs
        out = f"{work}/out{k}"
        run(f"{bin_dir}: 20 runs, output files", command +
            ["--bench", "20", "--profile", "--output-dir", out])
        run(f"{bin_dir}: 20 runs", command + ["--bench", "20", "--profile"])
        run(f"{bin_dir}: one run", command)
        written.append(out + "/u.npy")
    for path in written[1:]:
        print(f"{path} the same bytes as {written[0]}:",
              filecmp.cmp(written[0], path, shallow=False))
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
