#!/bin/sh
# Lists every C function in src/ and tools/ longer than LIMIT lines (default 120: the project's
# rule), counted from the first line of its signature to its closing brace, shortest first, and
# exits 1 when one of them is not in ALLOWED below. ctest runs it as `source_function_length`.
#
#   sh scripts/long_functions.sh [LIMIT]
#
# It reads the project's style: a definition's signature starts at column 0, its body opens with
# "{" at column 0 (or at the end of the signature's line) and closes with "}" at column 0.
set -u
cd "$(dirname "$0")/.." || exit 1
LIMIT=${1:-120}

# Functions allowed over the limit: FILE:NAME, one a line. Empty: the rule holds everywhere.
ALLOWED='
'

LONG=$(find src tools -name '*.[ch]' | LC_ALL=C sort | xargs awk -v limit="$LIMIT" '
    FNR == 1 { in_body = 0; signature = "" }
    !in_body && /^[A-Za-z_]/ { signature = $0; signature_line = FNR }
    !in_body && /^[ \t]/ && signature != "" { signature = signature " " $0 }
    !in_body && (/^\{/ || /^[A-Za-z_].*\)[ \t]*\{[ \t]*$/) && signature ~ /\(/ && signature !~ /=/ {
        match(signature, /[A-Za-z_][A-Za-z0-9_]*\(/)
        name = substr(signature, RSTART, RLENGTH - 1)
        in_body = 1
    }
    in_body && (/^\}/ || /^\{.*\}[ \t]*$/) {
        lines = FNR - signature_line + 1
        if (lines > limit)
            print lines, FILENAME ":" name
        in_body = 0
        signature = ""
        next
    }
    !in_body && /^[};]/ { signature = "" }
' | sort -n)

[ -z "$LONG" ] && exit 0
echo "$LONG" | {
    over=0
    while read -r lines where; do
        case "$ALLOWED" in
            *"
$where
"*) echo "$where: $lines lines (allowed for now)" ;;
            *) echo "$where: $lines lines, over $LIMIT"; over=1 ;;
        esac
    done
    exit $over
}
