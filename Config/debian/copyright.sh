#!/usr/bin/env bash
# Prints the package's copyright file in Debian's machine-readable format
# (https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/):
#   Config/debian/copyright.sh SCRATCH-PATH       (the build's, whose checkouts/ hold the Swift packages)
# Docent's own code, then what the executables carry inside them: the Swift packages this one
# depends on (their licences read from their checkouts), MuPDF (Debian's libmupdf-dev is a
# static library), the Swift runtime and Foundation with ICU's data (--static-swift-stdlib).
set -euo pipefail
cd "$(dirname "$0")/../.."
checkouts=$1/checkouts
# A licence text as a paragraph's continuation lines: each line indented, blank lines as " .".
indent() { sed -e 's/[[:space:]]*$//' -e 's/^$/./' -e 's/^/ /'; }

cat <<'HEAD'
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Docent
Comment: The executables in /usr/lib/docent are built with Swift's
 --static-swift-stdlib: the Swift runtime, its standard library, Dispatch and
 Foundation (Apache-2.0 with the Runtime Library Exception, which asks no
 attribution for them) and ICU's code and data in FoundationInternationalization
 (Unicode-3.0, below) are inside them, as are MuPDF (AGPL-3+, below; Debian's
 libmupdf-dev is a static library) and the Swift packages listed below by their
 checkouts. Everything else they use is a shared library of its own package.

Files: *
Copyright: 2026 The Docent authors
License: GPL-3+

Files: mupdf
Copyright: 2006-2024 Artifex Software, Inc.
License: AGPL-3+

Files: swift-foundation-icu
Copyright: 2016 and later Unicode, Inc. and others
License: Unicode-3.0
HEAD
for checkout in "$checkouts"/*/; do
    name=$(basename "$checkout")
    license=$(ls "$checkout" | grep -i -m1 -E '^(licen[cs]e|copying)')
    text=$checkout/$license
    if grep -q "Apache License" "$text"; then
        kind=Apache-2.0
        # The NOTICE's holder, else the one its sources' headers name.
        holder=$( { grep -h -m1 -E '^ *Copyright [0-9]' "$checkout"/NOTICE* 2>/dev/null \
            || grep -rh -m1 -E 'Copyright \(c\) [0-9]' "$checkout/Sources" 2>/dev/null; } | head -1 \
            | sed -E 's/^.*Copyright (\([cC]\) )?//' || true)
    elif grep -q "Permission is hereby granted, free of charge" "$text"; then
        kind=Expat
        holder=$(grep -h -m1 -i -E '^ *copyright' "$text" | sed -E 's/^ *[Cc]opyright *(\([Cc]\)|©)? *//')
    else
        echo "copyright.sh: cannot tell the licence of $name" >&2
        exit 1
    fi
    printf '\nFiles: .build/checkouts/%s/*\nCopyright: %s\nLicense: %s\n' "$name" "${holder:-the $name authors}" "$kind"
    [ "$kind" = Expat ] && sed -n '/Permission is hereby granted/,$p' "$text" | indent
done

cat <<'GPL'

License: GPL-3+
 This program is free software: you can redistribute it and/or modify it under
 the terms of the GNU General Public License as published by the Free Software
 Foundation, either version 3 of the License, or (at your option) any later
 version.
 .
 This program is distributed in the hope that it will be useful, but WITHOUT
 ANY WARRANTY; without even the implied warranty of MERCHANTABILITY or FITNESS
 FOR A PARTICULAR PURPOSE. See the GNU General Public License for more details.
 .
 On Debian systems, the complete text of the GNU General Public License
 version 3 can be found in "/usr/share/common-licenses/GPL-3".

License: Apache-2.0
 Licensed under the Apache License, Version 2.0 (the "License"); you may not
 use this file except in compliance with the License. You may obtain a copy of
 the License at http://www.apache.org/licenses/LICENSE-2.0
 .
 Unless required by applicable law or agreed to in writing, software
 distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
 WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
 License for the specific language governing permissions and limitations under
 the License.
 .
 On Debian systems, the complete text of the Apache License, Version 2.0 can
 be found in "/usr/share/common-licenses/Apache-2.0".

License: Unicode-3.0
 UNICODE LICENSE V3
 .
 Permission is hereby granted, free of charge, to any person obtaining a copy
 of data files and any associated documentation (the "Data Files") or software
 and any associated documentation (the "Software") to deal in the Data Files or
 Software without restriction, including without limitation the rights to use,
 copy, modify, merge, publish, distribute, and/or sell copies of the Data Files
 or Software, and to permit persons to whom the Data Files or Software are
 furnished to do so, provided that either (a) this copyright and permission
 notice appear with all copies of the Data Files or Software, or (b) this
 copyright and permission notice appear in associated Documentation.
 .
 THE DATA FILES AND SOFTWARE ARE PROVIDED "AS IS", WITHOUT WARRANTY OF ANY
 KIND, EXPRESS OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
 MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT OF THIRD
 PARTY RIGHTS. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR HOLDERS INCLUDED IN
 THIS NOTICE BE LIABLE FOR ANY CLAIM, OR ANY SPECIAL INDIRECT OR CONSEQUENTIAL
 DAMAGES, OR ANY DAMAGES WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR
 PROFITS, WHETHER IN AN ACTION OF CONTRACT, NEGLIGENCE OR OTHER TORTIOUS
 ACTION, ARISING OUT OF OR IN CONNECTION WITH THE USE OR PERFORMANCE OF THE
 DATA FILES OR SOFTWARE.
 .
 Except as contained in this notice, the name of a copyright holder shall not
 be used in advertising or otherwise to promote the sale, use or other dealings
 in these Data Files or Software without prior written authorization of the
 copyright holder.

License: AGPL-3+
GPL
# The Affero GPL's text as LICENSE carries it (its second part).
sed -n '/GNU AFFERO GENERAL PUBLIC LICENSE/,$p' LICENSE | indent
