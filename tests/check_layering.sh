#!/usr/bin/env bash
# Layering of lib/ (docs/architecture.md, issue 39): each floor includes only the floors below it.
#
#   lib/core             containers, spaces, views, options, context, errors: core only
#   lib/backend/common   what both backends share (the masked dot model, the R-Kleene recursion)
#   lib/backend/cpu      the CPU kernels: core, common
#   lib/backend/cuda     the CUDA backend: core, common (not the CPU's kernels)
#   lib/ops              one body per operation: everything in lib/
#   algorithms/          above lib/: no file under lib/ includes an algorithm header
#
# A header is placed by the folder that holds it; <kleene/semiring.hpp> and the other headers of
# semirings/ and the generated ones (instance_lists.hpp, config.hpp) sit below everything. The one
# allowance: the context's source (lib/core/src/context.cpp, compiled into the CUDA backend's
# library) asks the backend's runtime for the current device. Fails, listing the lines, when a
# file includes a header of a floor above its own.
set -u
root=${1:?usage: check_layering.sh SOURCE_DIR}
cd "$root" || exit 2

# floor of a header path <kleene/...>: the folder that holds it, or "below" / "algorithms"
declare -A floor_of
for f in core backend/common backend/cpu backend/cuda ops; do
    while IFS= read -r h; do floor_of[$h]=$f; done < <(cd "lib/$f/include" && find kleene -type f)
done
allowed_core="core"
allowed_common="core backend/common"
allowed_cpu="core backend/common backend/cpu"
allowed_cuda="core backend/common backend/cuda"
allowed_ops="core backend/common backend/cpu backend/cuda ops"

bad=()
for f in core backend/common backend/cpu backend/cuda ops; do
    case $f in
        core) allowed=$allowed_core ;;
        backend/common) allowed=$allowed_common ;;
        backend/cpu) allowed=$allowed_cpu ;;
        backend/cuda) allowed=$allowed_cuda ;;
        ops) allowed=$allowed_ops ;;
    esac
    while IFS= read -r line; do
        file=${line%%:*}
        rest=${line#*:}
        lineno=${rest%%:*}
        inc=$(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]+)[>"].*/\1/p' \
                  <<<"${rest#*:}")
        [ -n "$inc" ] || continue
        case $inc in
            kleene/algorithms/*|*algorithms/*)
                bad+=("$file:$lineno: $inc (algorithms/ sits above lib/)"); continue ;;
        esac
        target=${floor_of[$inc]:-}
        [ -n "$target" ] || continue  # semirings/, generated, the standard library, CUDA
        [ "$file" = lib/core/src/context.cpp ] && [ "$inc" = kleene/cuda/runtime.hpp ] && continue
        if [[ " $allowed " != *" $target "* ]]; then
            bad+=("$file:$lineno: $inc (lib/$target, above lib/$f)")
        fi
    done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include' "lib/$f" --include='*.hpp' \
                 --include='*.cpp' --include='*.cu' --include='*.cuh' --include='*.h' --include='*.inl')
done
# Files outside the floors (lib/graphblas, the bridge to SuiteSparse) may include any of them, but
# not algorithms/.
while IFS= read -r line; do
    bad+=("$line (algorithms/ sits above lib/)")
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]([^>"]*/)?(kleene/)?algorithms/' \
             lib --include='*.hpp' --include='*.cpp' --include='*.cu' --include='*.cuh' | sort -u |
         grep -vE '^lib/(core|backend|ops)/')
for d in include cpu cuda src; do
    if [ -e "lib/$d" ]; then bad+=("lib/$d: lib/ holds only core/, backend/, ops/ and graphblas/"); fi
done

if [ ${#bad[@]} -gt 0 ]; then
    echo "lib/ includes across its floors (core < backend/common < backend/cpu, backend/cuda < ops;"
    echo "algorithms/ above all):"
    printf '  %s\n' "${bad[@]}"
    exit 1
fi
echo "lib/ keeps its floors: core < backend (common, cpu, cuda) < ops, and algorithms/ above"
