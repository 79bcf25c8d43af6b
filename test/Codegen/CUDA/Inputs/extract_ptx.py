"""extract_ptx.py IN.mlir OUT.ptx: writes the PTX of the first gpu.binary
object (gpu-module-to-binary{format=isa}) of IN, unescaped."""
import re
import sys

text = open(sys.argv[1]).read()
match = re.search(r'assembly = "(.*?)"', text, re.S)
if not match:
    sys.exit("error: no gpu.binary assembly in " + sys.argv[1])
ptx = re.sub(r"\\([0-9A-Fa-f]{2})", lambda m: chr(int(m.group(1), 16)),
             match.group(1))
with open(sys.argv[2], "w") as f:
    f.write(ptx)
