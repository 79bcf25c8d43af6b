"""Damages files byte by byte and checks oneflow-run reports each one.

  damage.py flip FILE POSITION        flips (xor 0xff) one byte in place
  damage.py sweep COUNT FILE -- CMD   for COUNT positions spread over FILE
                                      (first, last and evenly between): flip
                                      the byte, run CMD, which must fail with
                                      "is damaged" in its stderr; restore
"""
import subprocess
import sys


def flip(path, position):
    with open(path, "r+b") as f:
        f.seek(position)
        byte = f.read(1)
        f.seek(position)
        f.write(bytes([byte[0] ^ 0xFF]))


def sweep(count, path, command):
    with open(path, "rb") as f:
        size = len(f.read())
    positions = sorted({size - 1} | {i * size // count for i in range(count)})
    detected = 0
    for position in positions:
        flip(path, position)
        run = subprocess.run(command, capture_output=True, text=True)
        flip(path, position)
        if run.returncode != 0 and "is damaged" in run.stderr:
            detected += 1
        else:
            print(f"byte {position}: not detected (exit {run.returncode}): "
                  f"{run.stderr.strip()[-300:]}")
    print(f"{detected} of {len(positions)} damaged positions detected")


if __name__ == "__main__":
    if sys.argv[1] == "flip":
        flip(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "sweep":
        split = sys.argv.index("--")
        sweep(int(sys.argv[2]), sys.argv[3], sys.argv[split + 1:])
