#!/usr/bin/env bash
# Builds the DocC catalogs of Inject and InjectTesting from symbol graphs, with warnings as errors.
# Output: .build-docc/<Module>.doccarchive. Used by .ci/run; run it by hand to preview: `bash Scripts/build-docs.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-docc
graphs="$PWD/$scratch/symbol-graphs"
# Not cleaned between runs: the compiler rewrites a module's graph whenever it recompiles the module, and an up-to-date
# build does not recompile, so the graphs on disk are always those of the current sources.
mkdir -p "$graphs"

# Symbol graphs of the public API, from the compiler, for both modules (InjectTesting builds Inject too).
swift build --scratch-path "$scratch" --target InjectTesting \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs" \
    -Xswiftc -emit-extension-block-symbols

for module in Inject InjectTesting; do
    mkdir -p "$graphs/$module"
    # A module's own graph and its extensions of other modules (Inject@Swift, InjectTesting@Testing, ...).
    cp "$graphs/$module".symbols.json "$graphs/$module/"
    cp "$graphs/$module"@*.symbols.json "$graphs/$module/" 2> /dev/null || true
    docc convert "Sources/$module/$module.docc" \
        --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.inject.$module" \
        --output-path "$scratch/$module.doccarchive" \
        --warnings-as-errors
done
echo "DocC archives: $scratch/Inject.doccarchive, $scratch/InjectTesting.doccarchive"
