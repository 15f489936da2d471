#!/usr/bin/env bash
# api_frontends: the front ends (src/cli, src/server) are users of the public API like any
# other program: they include their own headers, generated ones and include/ (<gpuplan.h>),
# never a header of src/lib, and name no private (gpi_/GPI_) function, type or macro.
# Usage: frontends.sh SOURCE_DIR
set -euo pipefail
src=$1
cd "$src"
rc=0
own=$(ls src/cli/*.h src/server/*.h | xargs -n1 basename | sort -u)
generated="web_assets.h"   # the embedded page (cmake/Embed.cmake, in the build directory)
while IFS=: read -r file line text; do
    hdr=$(echo "$text" | sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/')
    case " $(echo $own) $generated " in
        *" $hdr "*) continue ;;
    esac
    echo "api_frontends: $file:$line includes \"$hdr\", not a front-end header" \
         "(the library's own headers are private: use <gpuplan.h>)" >&2
    rc=1
done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' src/cli/*.[ch] src/server/*.[ch] || true)
if grep -nE '#[[:space:]]*include[[:space:]]*[<"][^>"]*(src/lib|internal\.h|private/)' src/cli/*.[ch] src/server/*.[ch]; then
    echo "api_frontends: the lines above include a private header of the library" >&2
    rc=1
fi
if grep -nwE '(gpi|GPI)_[A-Za-z0-9_]+' src/cli/*.[ch] src/server/*.[ch]; then
    echo "api_frontends: the lines above name the library's private (gpi_) declarations" >&2
    rc=1
fi
[ $rc -eq 0 ] && echo "api_frontends: src/cli and src/server use include/ only"
exit $rc
