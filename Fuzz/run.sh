#!/usr/bin/env bash
# Builds Docent's fuzz targets with libFuzzer and AddressSanitizer, and runs each for a
# chosen time on a seed corpus of real files (Debian's own, found on this machine).
#
#   Fuzz/run.sh [SECONDS] [TARGET...]      default: 600 s each, every target
#
# Findings (crashes, leaks, timeouts) land in .build-fuzz/findings/; a summary line per
# target (executions, corpus size, findings) is printed at the end and kept in
# .build-fuzz/summary.txt. Exit status 1 when any target found anything.
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(FuzzJSON FuzzCSV FuzzRTF FuzzPostScript FuzzDVI FuzzManPage FuzzMarkdown FuzzImageHeader FuzzQuery FuzzDeclarations FuzzInotify FuzzHelperReply FuzzTokenizer)
fi
scratch=.build-fuzz
mkdir -p "$scratch/findings" "$scratch/corpus"

# Seeds: real files of each kind from the system (small ones), and hand-made ones where
# no such files exist (queries, inotify buffers, helper replies).
seed_from() {  # TARGET FIND-ARGS...
  local dir="$scratch/corpus/$1"; shift
  [ -d "$dir" ] && [ -n "$(ls -A "$dir")" ] && return
  mkdir -p "$dir"
  find /usr/share /usr/lib /etc "$@" -size -64k -type f 2>/dev/null | head -200 | while read -r f; do cp "$f" "$dir/" 2>/dev/null; done
}
seed_from FuzzJSON -name '*.json'
seed_from FuzzCSV \( -name '*.csv' -o -name '*.tsv' \)
seed_from FuzzRTF -name '*.rtf'
seed_from FuzzDVI -name '*.dvi'
if [ -z "$(ls -A "$scratch/corpus/FuzzDVI" 2>/dev/null)" ]; then  # Debian ships them gzipped
  find /usr/share/doc -name '*.dvi.gz' -size -64k | head -20 | while read -r f; do zcat "$f" > "$scratch/corpus/FuzzDVI/$(basename "$f" .gz)"; done
fi
seed_from FuzzPostScript \( -name '*.ps' -o -name '*.eps' \)
if [ -z "$(ls -A "$scratch/corpus/FuzzPostScript" 2>/dev/null)" ]; then  # hand-made: a header, an (atend) trailer, a DOS EPS header
  printf '%%!PS-Adobe-3.0\n%%%%Title: (a \\(b\\))\n%%%%Pages: (atend)\n%%%%EndComments\nshowpage\n%%%%Trailer\n%%%%Pages: 2\n' > "$scratch/corpus/FuzzPostScript/atend.ps"
  printf '\xc5\xd0\xd3\xc6\x1e\x00\x00\x00\x20\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff%%!PS-Adobe-3.0 EPSF-3.0\n%%%%Title: x\n' > "$scratch/corpus/FuzzPostScript/dos.eps"
fi
seed_from FuzzManPage -path '*/man/man*' -name '*.[1-8]'
if [ -z "$(ls -A "$scratch/corpus/FuzzManPage" 2>/dev/null)" ]; then  # man pages are gzipped on Debian
  find /usr/share/man/man1 -name '*.1.gz' -size -16k | head -100 | while read -r f; do zcat "$f" > "$scratch/corpus/FuzzManPage/$(basename "$f" .gz)"; done
fi
seed_from FuzzMarkdown -name '*.md'
seed_from FuzzDeclarations -name '*.yaml'
cp Config/content-types.yaml "$scratch/corpus/FuzzDeclarations/" 2>/dev/null
mkdir -p "$scratch/corpus/FuzzImageHeader" "$scratch/corpus/FuzzQuery" "$scratch/corpus/FuzzInotify" "$scratch/corpus/FuzzHelperReply" "$scratch/corpus/FuzzTokenizer"
if [ -z "$(ls -A "$scratch/corpus/FuzzImageHeader")" ]; then
  # The first byte chooses the format (0 PNG, 1 JPEG, 2 GIF, 3 WebP, 4 BMP).
  i=0
  for pattern in '*.png' '*.jpg' '*.gif' '*.webp' '*.bmp'; do
    find /usr/share -name "$pattern" -size -32k 2>/dev/null | head -20 | while read -r f; do
      { printf "\\x$(printf %02x $i)"; cat "$f"; } > "$scratch/corpus/FuzzImageHeader/$i-$(basename "$f")"
    done
    i=$((i + 1))
  done
fi
if [ -z "$(ls -A "$scratch/corpus/FuzzTokenizer")" ]; then
  # Text in many scripts: Debian's Chinese, Japanese and Korean translations where installed,
  # and a few lines of mixed scripts.
  for f in /usr/share/man/zh_CN/man1/ls.1.gz /usr/share/man/ja/man1/ls.1.gz; do
    [ -f "$f" ] && zcat "$f" | head -c 16000 > "$scratch/corpus/FuzzTokenizer/$(echo "$f" | tr / _)"
  done
  printf '%s' 'The Swift言語 compiler runs on Linuxでも. 東京。大阪 naïve Ωmega 데비안은 자유 소프트웨어' > "$scratch/corpus/FuzzTokenizer/mixed"
fi
if [ -z "$(ls -A "$scratch/corpus/FuzzQuery")" ]; then
  n=0
  for q in 'invoice type:pdf' '"exact phrase" OR other' 'licen* -draft (a OR b) NOT c' 'size:>10M modified:<7d ext:md' \
           'name:*.swift in:/home/me title:"Read me"' 'type:image -type:png' 'a AND (b OR (c NOT d))' 'modified:>2025-06-01'; do
    printf '%s' "$q" > "$scratch/corpus/FuzzQuery/q$n"; n=$((n + 1))
  done
fi
if [ -z "$(ls -A "$scratch/corpus/FuzzInotify")" ]; then
  # struct inotify_event {int wd; uint32 mask, cookie, len; char name[len];}: a create and a move pair.
  python3 - "$scratch/corpus/FuzzInotify" <<'PY'
import struct, sys
def event(wd, mask, cookie, name):
    raw = name.encode() + b'\0'
    raw += b'\0' * (-len(raw) % 16)
    return struct.pack('<iIII', wd, mask, cookie, len(raw)) + raw
open(sys.argv[1] + '/create', 'wb').write(event(1, 0x100, 0, 'notes.txt') + event(1, 0x8, 0, 'notes.txt'))
open(sys.argv[1] + '/move', 'wb').write(event(2, 0x40, 7, 'a') + event(3, 0x80, 7, 'b') + event(1, 0x4000, 0, ''))
PY
fi
if [ -z "$(ls -A "$scratch/corpus/FuzzHelperReply")" ]; then
  python3 - "$scratch/corpus/FuzzHelperReply" <<'PY'
import json, struct, sys
def frame(b): return struct.pack('<I', len(b)) + b
reply = {"extraction": {"contentType": "com.adobe.pdf", "documentType": "PDFDocument", "selection": "PDFDocument",
         "title": "Spec", "metadata": [], "problems": [], "preview": {"elements": []}}, "gone": False, "hasText": True}
open(sys.argv[1] + '/reply', 'wb').write(frame(json.dumps(reply).encode()) + frame('the text'.encode()))
open(sys.argv[1] + '/gone', 'wb').write(frame(b'{"gone": true, "hasText": false}') + frame(b''))
PY
fi

status=0
: > "$scratch/summary.txt"
for target in "${targets[@]}"; do
  echo "== $target: building"
  if ! DOCENT_FUZZ=1 swift build --scratch-path "$scratch" -c release --product "$target" \
       -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld \
       -Xcc -fsanitize=fuzzer-no-link,address -Xcxx -fsanitize=fuzzer-no-link,address > "$scratch/build-$target.log" 2>&1; then
    tail -20 "$scratch/build-$target.log"; echo "$target: build failed" | tee -a "$scratch/summary.txt"; status=1; continue
  fi
  echo "== $target: fuzzing for $seconds s"
  before=$(ls "$scratch/findings" | wc -l)
  "$scratch/release/$target" "$scratch/corpus/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$scratch/findings/$target-" > "$scratch/run-$target.log" 2>&1
  after=$(ls "$scratch/findings" | wc -l)
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$scratch/run-$target.log" | grep -o '[0-9]*$')
  corpus=$(ls "$scratch/corpus/$target" | wc -l)
  line="$target: ${runs:-?} executions in $seconds s, corpus $corpus inputs, $((after - before)) findings"
  echo "$line" | tee -a "$scratch/summary.txt"
  [ "$after" -gt "$before" ] && { status=1; grep -m3 -E 'ERROR|SUMMARY|Fatal|crash' "$scratch/run-$target.log"; }
done
echo; cat "$scratch/summary.txt"
exit $status
