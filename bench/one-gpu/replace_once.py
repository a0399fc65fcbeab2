"""replace_once.py SRC OUT OLD NEW: writes SRC to OUT with its one occurrence of OLD made NEW, or
fails naming SRC (the planted candidates' scripts: make-planted-proj.sh, make-planted-arrays.sh)."""
import sys

src, out, old, new = sys.argv[1:5]
text = open(src).read()
if old not in text:
    sys.exit(f"{src}: the text to change is not there: {old[:60]}")
open(out, "w").write(text.replace(old, new, 1))
