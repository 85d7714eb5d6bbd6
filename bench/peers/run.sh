#!/usr/bin/env bash
# Run the real peers of kleene's graph kernels on the GPU host, from the binaries packed by
# bench/peers/build.sh: the GAP reference (gapbs v1.5, CPU: bfs sssp cc pr tc bc) and Gunrock (GPU:
# bfs sssp pr tc bc; it has no connected components), on the same graphs from the same sources.
#
#   bench/peers/run.sh SOURCES GRAPH.mtx [GRAPH.mtx | GRAPH.sg | LIST ...]
#
# SOURCES: one 0-based vertex per line (blank lines and # comments skipped). A 0-based vertex v is
#   line v+1's vertex of the 1-based .mtx: gapbs and Gunrock both read a .mtx id i as vertex i-1 and
#   neither renumbers (gapbs's .sg/.wsg keep those ids; only its TC relabels, inside the kernel).
# GRAPH.mtx: symmetric Matrix Market, integer weights (1..255); a LIST is a file of such paths.
# GRAPH.sg: gapbs's serialized graph with GRAPH.wsg beside it (bench_graph_kernels --write-sg
#   writes both from the graph it measures: large generated graphs skip the text conversion).
# Variables [defaults]: PEERS_BIN [/work/peers/peers-bin] (the packed binaries), OUT [/tmp/peers-out]
#   (logs go to $OUT/peers/), WORK [/tmp/peers-work] (converted graphs; large, kept out of OUT),
#   THREADS [nproc] (gapbs's OMP_NUM_THREADS; OMP_PROC_BIND / OMP_PLACES are passed on as set),
#   TRIALS [3] (runs per source, or per kernel for cc pr tc), NSRC [all] (BFS/SSSP sources used),
#   BC_SOURCES [4], KERNELS ["bfs sssp cc pr tc bc"], PEERS ["gapbs gunrock"],
#   DELTA [sweep] (gapbs SSSP delta; "sweep": each of SWEEP_DELTAS ["1 2 4 ... 4096"] on the first
#   SWEEP_SOURCES [4] sources, then all sources with the fastest; a number: that delta only),
#   VALIDATE [1] (gapbs -v on the first source / once; Gunrock --validate on BFS/SSSP's last source,
#   against its own CPU code), PR_TOL [1e-4] and PR_ITERS [20] (gapbs pr -t / -i, GAP's defaults),
#   GUNROCK_PR_TOL [its default 1e-6, a max-norm test], GUNROCK_ARGS [none] (extra Gunrock options).
#
# Output: one line per (peer, kernel, graph) on stdout and in $OUT/peers/summary.txt:
#   PEERS peer=<gapbs|gunrock> kernel=<k> graph=<name> ms=<median> runs=<n> <answer key=value ...>
# ms: BFS / SSSP the median over sources of each source's median over TRIALS; BC the sum over its
# BC_SOURCES sources of each source's median (one source per run in both peers); cc pr tc the
# median over TRIALS. Gunrock's times are its own (the enactor's events; TC adds its final
# reduction), one warm-up run first is dropped, and CUDA_MODULE_LOADING=EAGER keeps module loading
# out of them. gapbs's times are its "Trial Time" (graph loaded from its serialized .sg/.wsg).
# Also: the graph conversions (gapbs converter to .sg / .wsg, and Gunrock's input), timed apart;
# per-source times in $OUT/peers/per-source.txt; every command's full output in $OUT/peers/<graph>/.
#
# Gunrock's input: gapbs's cleaned graph (self loops and duplicate edges removed, the smaller
# weight kept, as gapbs does), written back as a 1-based symmetric .mtx (lower triangle, sorted, so
# Gunrock's rows come out sorted as its TC needs), weighted for SSSP and pattern for the rest
# (Gunrock's PageRank would otherwise weight the edges). Gunrock's TC counts each triangle at its
# three corners; the answer printed is that sum / 3.
set -uo pipefail

usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
[[ $# -ge 2 ]] || usage 1
sources_file=$1; shift
bin=${PEERS_BIN:-/work/peers/peers-bin}
out=${OUT:-/tmp/peers-out}/peers
work=${WORK:-/tmp/peers-work}
threads=${THREADS:-$(nproc)}
trials=${TRIALS:-3}
nsrc=${NSRC:-0}
bc_sources=${BC_SOURCES:-4}
kernels=${KERNELS:-"bfs sssp cc pr tc bc"}
peers=${PEERS:-"gapbs gunrock"}
delta=${DELTA:-sweep}
sweep_deltas=${SWEEP_DELTAS:-"1 2 4 8 16 32 64 128 256 512 1024 2048 4096"}
sweep_sources=${SWEEP_SOURCES:-4}
validate=${VALIDATE:-1}
pr_tol=${PR_TOL:-1e-4}
pr_iters=${PR_ITERS:-20}
gunrock_args=${GUNROCK_ARGS:-}
export OMP_NUM_THREADS=$threads

mkdir -p "$out" "$work"
summary=$out/summary.txt
persrc=$out/per-source.txt
: > "$summary"; : > "$persrc"

has_kernel() { [[ " $kernels " == *" $1 "* ]]; }
has_peer() { [[ " $peers " == *" $1 "* ]]; }
emit() { echo "PEERS $*" | tee -a "$summary"; }
note() { echo "[peers/run] $*" >&2; }
now() { date +%s.%N; }
ms_since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f", (b - a) * 1000 }'; }
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR == 0) { print "nan"; exit } if (NR % 2) printf "%.4f\n", a[(NR + 1) / 2]; else printf "%.4f\n", (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
sum() { awk '{ s += $1 } END { printf "%.4f\n", s }'; }
# gapbs prints "Trial Time:  <seconds>" per trial; in ms, one a line.
gap_times() { awk '/^Trial Time:/ { printf "%.4f\n", $3 * 1000 }' "$1"; }
# Gunrock (edited) prints "PEERS_RUN iterations=<n> ms=<t>" per run; the first (warm-up) dropped.
gr_times() { grep -o 'PEERS_RUN iterations=[0-9]* ms=[0-9.e+-]*' "$1" | tail -n +2 | sed 's/.*ms=//'; }
gr_iters() { grep -o 'PEERS_RUN iterations=[0-9]*' "$1" | tail -1 | sed 's/.*=//'; }

# ---------------------------------------------------------------- inputs
graphs=()
for a in "$@"; do
  if [[ "$a" == *.mtx || "$a" == *.sg ]]; then graphs+=("$a")
  elif [[ -f "$a" ]]; then while read -r g; do [[ -n "$g" && "$g" != \#* ]] && graphs+=("$g"); done < "$a"
  else note "not a .mtx or a list: $a"; exit 1; fi
done
mapfile -t sources < <(sed 's/#.*//; s/[[:space:]]//g; /^$/d' "$sources_file")
[[ ${#sources[@]} -gt 0 ]] || { note "no sources in $sources_file"; exit 1; }
if [[ "$nsrc" -gt 0 && "$nsrc" -lt ${#sources[@]} ]]; then sources=("${sources[@]:0:$nsrc}"); fi
bc_list=("${sources[@]:0:$bc_sources}")
sweep_list=("${sources[@]:0:$sweep_sources}")

gap=$bin/gapbs gr=$bin/gunrock
if has_peer gapbs; then
  [[ -x "$gap/bfs" ]] || { note "no gapbs binaries in $gap"; exit 1; }
  if ldd "$gap/bfs" | grep -q 'not found'; then   # e.g. no libgomp on this host: the packed copy
    export LD_LIBRARY_PATH=$bin/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    note "using the packed libraries in $bin/lib"
  fi
fi
gpu=""
if has_peer gunrock; then
  if [[ ! -x "$gr/bfs" ]]; then
    note "no Gunrock binaries in $gr"
  elif ! command -v nvidia-smi >/dev/null 2>&1 || ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    note "no GPU here (nvidia-smi finds none): the Gunrock runs are skipped"
  else
    gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)
  fi
fi

{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)  host: $(hostname)  cores: $(nproc)  load: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "gpu: ${gpu:-none}"
  echo "threads: $threads  OMP_PROC_BIND=${OMP_PROC_BIND:-unset}  OMP_PLACES=${OMP_PLACES:-unset}"
  echo "trials: $trials  sources: ${#sources[@]} (${sources[*]:0:8}...)  bc sources: ${bc_list[*]}  delta: $delta"
  echo "kernels: $kernels  peers: $peers  validate: $validate"
  echo "--- VERSIONS"; cat "$bin/VERSIONS" 2>/dev/null
} | tee "$out/env.txt" >&2

# ---------------------------------------------------------------- gapbs
# gap_per_source <kernel> <name> <log prefix> <args...> -- over the sources: one process per source.
gap_per_source() {
  local k=$1 name=$2 dir=$3; shift 3
  local first=1 s log
  local -a meds=()
  for s in "${srcs[@]}"; do
    log=$dir/gapbs-$k-r$s.log
    local v=""; [[ "$validate" == 1 && $first == 1 ]] && v=-v
    "$gap/$k" "$@" -r "$s" -n "$trials" -a $v > "$log" 2>&1 || note "gapbs $k failed on $name from $s (see $log)"
    if [[ -n "$v" ]]; then
      if grep -q 'Verification: *FAIL' "$log" || ! grep -q 'Verification: *PASS' "$log"; then
        note "gapbs $k on $name from $s: verification FAILED (see $log)"
      else note "gapbs $k on $name from $s: verification PASS"; fi
    fi
    local m; m=$(gap_times "$log" | median)
    echo "gapbs $k $name source=$s ms=$m args=[$*] $(gap_times "$log" | tr '\n' ' ')" >> "$persrc"
    meds+=("$m"); first=0
  done
  printf '%s\n' "${meds[@]}"
}

# gap_verify <kernel> <name> <dir> <args...>: one more trial with gapbs's own check (-v), untimed.
gap_verify() {
  local k=$1 name=$2 dir=$3; shift 3
  [[ "$validate" == 1 ]] || return 0
  "$gap/$k" "$@" -n 1 -v > "$dir/gapbs-$k-verify.log" 2>&1
  if grep -q 'Verification: *PASS' "$dir/gapbs-$k-verify.log"; then note "gapbs $k on $name: verification PASS"
  else note "gapbs $k on $name: verification FAILED (see $dir/gapbs-$k-verify.log)"; fi
}

srcs=()
run_gapbs() {
  local mtx=$1 name=$2 dir=$3
  local sg=$work/$name.sg wsg=$work/$name.wsg t log m
  if [[ "$mtx" == *.sg ]]; then
    sg=$mtx wsg=${mtx%.sg}.wsg
  else
  t=$(now); "$gap/converter" -f "$mtx" -s -b "$sg" > "$dir/gapbs-convert-sg.log" 2>&1 ||
    { note "gapbs converter failed on $name"; return; }
  emit "peer=gapbs kernel=convert-sg graph=$name ms=$(ms_since "$t") runs=1 file=$sg"
  fi
  if has_kernel sssp && [[ "$mtx" != *.sg ]]; then
    t=$(now); "$gap/converter" -f "$mtx" -s -w -b "$wsg" > "$dir/gapbs-convert-wsg.log" 2>&1 ||
      { note "gapbs converter -w failed on $name"; }
    emit "peer=gapbs kernel=convert-wsg graph=$name ms=$(ms_since "$t") runs=1 file=$wsg"
  fi

  if has_kernel bfs; then
    srcs=("${sources[@]}")
    m=$(gap_per_source bfs "$name" "$dir" -f "$sg" | median)
    local first=$dir/gapbs-bfs-r${sources[0]}.log
    emit "peer=gapbs kernel=bfs graph=$name ms=$m runs=$((${#sources[@]} * trials)) threads=$threads" \
      "source=${sources[0]} reached=$(awk '/^BFS Tree has/ { print $4 }' "$first" | tail -1)"
  fi
  if has_kernel sssp && [[ -f "$wsg" ]]; then
    local d best=$delta bestm=""
    if [[ "$delta" == sweep ]]; then
      srcs=("${sweep_list[@]}")
      for d in $sweep_deltas; do
        mkdir -p "$dir/sweep-d$d"
        m=$(validate=0 gap_per_source sssp "$name" "$dir/sweep-d$d" -f "$wsg" -d "$d" | median)
        emit "peer=gapbs kernel=sssp-delta graph=$name ms=$m runs=$((${#sweep_list[@]} * trials)) threads=$threads delta=$d"
        if [[ -z "$bestm" ]] || awk -v a="$m" -v b="$bestm" 'BEGIN { exit !(a < b) }'; then best=$d bestm=$m; fi
      done
    fi
    srcs=("${sources[@]}")
    m=$(gap_per_source sssp "$name" "$dir" -f "$wsg" -d "$best" | median)
    local first=$dir/gapbs-sssp-r${sources[0]}.log
    emit "peer=gapbs kernel=sssp graph=$name ms=$m runs=$((${#sources[@]} * trials)) threads=$threads delta=$best" \
      "source=${sources[0]} reached=$(awk '/^SSSP Tree reaches/ { print $4 }' "$first" | tail -1)"
  fi
  if has_kernel cc; then
    log=$dir/gapbs-cc.log
    "$gap/cc" -f "$sg" -n "$trials" -a > "$log" 2>&1 || note "gapbs cc failed on $name"
    gap_verify cc "$name" "$dir" -f "$sg"
    emit "peer=gapbs kernel=cc graph=$name ms=$(gap_times "$log" | median) runs=$trials threads=$threads" \
      "components=$(awk '/^There are .* components/ { print $3 }' "$log" | tail -1)"
  fi
  if has_kernel pr; then
    log=$dir/gapbs-pr.log
    "$gap/pr" -f "$sg" -n "$trials" -t "$pr_tol" -i "$pr_iters" -a > "$log" 2>&1 || note "gapbs pr failed on $name"
    # Its iteration count: one more run that logs each iteration's error (kept out of the timing).
    "$gap/pr" -f "$sg" -n 1 -t "$pr_tol" -i "$pr_iters" -l > "$dir/gapbs-pr-iters.log" 2>&1
    gap_verify pr "$name" "$dir" -f "$sg" -t "$pr_tol" -i "$pr_iters"
    local it top
    it=$(grep -cE '^ *[0-9]+ +[0-9.e+-]+$' "$dir/gapbs-pr-iters.log")
    top=$(grep -E '^[0-9]+:[0-9.e+-]+$' "$log" | head -5 | paste -sd, -)
    emit "peer=gapbs kernel=pr graph=$name ms=$(gap_times "$log" | median) runs=$trials threads=$threads" \
      "iterations=$it tol=$pr_tol top=$top"
  fi
  if has_kernel tc; then
    log=$dir/gapbs-tc.log
    "$gap/tc" -f "$sg" -n "$trials" -a > "$log" 2>&1 || note "gapbs tc failed on $name"
    gap_verify tc "$name" "$dir" -f "$sg"
    emit "peer=gapbs kernel=tc graph=$name ms=$(gap_times "$log" | median) runs=$trials threads=$threads" \
      "triangles=$(awk '/ triangles$/ { print $1 }' "$log" | tail -1)"
  fi
  if has_kernel bc; then
    srcs=("${bc_list[@]}")
    m=$(gap_per_source bc "$name" "$dir" -f "$sg" -i 1 | sum)
    local tops="" s
    for s in "${bc_list[@]}"; do
      # gapbs scores the source too (its own top); Gunrock does not: the top vertex other than it.
      tops+="${tops:+/}$(grep -E '^[0-9]+:[0-9.e+-]+$' "$dir/gapbs-bc-r$s.log" | cut -d: -f1 | grep -vx "$s" | head -1)"
    done
    emit "peer=gapbs kernel=bc graph=$name ms=$m runs=$((${#bc_list[@]} * trials)) threads=$threads" \
      "sources=$(IFS=,; echo "${bc_list[*]}") top_other_vertex_per_source=$tops"
  fi
}

# ---------------------------------------------------------------- gunrock
# Gunrock's inputs from gapbs's cleaned graph: its edge list (each edge both ways, 0-based) back to
# a 1-based lower-triangle symmetric .mtx in row order; n from the original header.
gunrock_inputs() {
  local mtx=$1 name=$2 dir=$3 n t
  local from=$mtx wfrom=$mtx   # gapbs's .sg / .wsg when this run made them (faster to read)
  if [[ "$mtx" == *.sg ]]; then   # the vertex count: the .sg header's third field (int64 at byte 9)
    n=$(od -An -t d8 -j 9 -N 8 "$mtx" | tr -d ' ')
    from=$mtx wfrom=${mtx%.sg}.wsg
  else
    n=$(grep -v '^%' "$mtx" | head -1 | awk '{ print $1 }')
  fi
  [[ -f "$work/$name.sg" && "$work/$name.sg" -nt "$mtx" ]] && from=$work/$name.sg
  [[ -f "$work/$name.wsg" && "$work/$name.wsg" -nt "$mtx" ]] && wfrom=$work/$name.wsg
  t=$(now)
  "$gap/converter" -f "$from" -s -e "$work/$name.el" > "$dir/gunrock-prep-el.log" 2>&1 || return 1
  { echo "%%MatrixMarket matrix coordinate pattern symmetric"
    awk '$1 > $2' "$work/$name.el" | wc -l | awk -v n="$n" '{ print n, n, $1 }'
    awk '$1 > $2 { print $1 + 1, $2 + 1 }' "$work/$name.el"; } > "$work/$name.pattern.mtx"
  rm -f "$work/$name.el"
  if has_kernel sssp; then
    "$gap/converter" -f "$wfrom" -s -w -e "$work/$name.wel" > "$dir/gunrock-prep-wel.log" 2>&1 || return 1
    { echo "%%MatrixMarket matrix coordinate integer symmetric"
      awk '$1 > $2' "$work/$name.wel" | wc -l | awk -v n="$n" '{ print n, n, $1 }'
      awk '$1 > $2 { print $1 + 1, $2 + 1, $3 }' "$work/$name.wel"; } > "$work/$name.weighted.mtx"
    rm -f "$work/$name.wel"
  fi
  emit "peer=gunrock kernel=prepare-input graph=$name ms=$(ms_since "$t") runs=1 file=$work/$name.pattern.mtx"
}

# gr_sources <list...>: a warm-up run of the first, then every source TRIALS times, comma-separated.
gr_sources() {
  local -a l=("$1"); local t s
  for ((t = 0; t < trials; t++)); do for s in "$@"; do l+=("$s"); done; done
  (IFS=,; echo "${l[*]}")
}
# gr_source_medians <log> <sources...>: runs in order (warm-up dropped), source i%K; medians a line.
gr_source_medians() {
  local log=$1 kn=$2; shift 2
  gr_times "$log" | awk -v k="$#" -v list="$*" '
    BEGIN { split(list, src, " ") }
    { i = (NR - 1) % k + 1; t[i] = t[i] " " $1 }
    END { for (i = 1; i <= k; i++) print src[i], t[i] }' |
  while read -r src rest; do
    local m; m=$(tr ' ' '\n' <<< "$rest" | sed '/^$/d' | median)
    echo "gunrock $kn $gname source=$src ms=$m $rest" >> "$persrc"
    echo "$m"
  done
}

run_gunrock() {
  local mtx=$1 name=$2 dir=$3 log m
  local pat=$work/$name.pattern.mtx wgt=$work/$name.weighted.mtx
  gname=$name
  export CUDA_MODULE_LOADING=EAGER
  gunrock_inputs "$mtx" "$name" "$dir" || { note "could not prepare Gunrock's input for $name"; return; }
  local val=""; [[ "$validate" == 1 ]] && val=--validate
  if has_kernel bfs; then
    log=$dir/gunrock-bfs.log
    "$gr/bfs" -m "$pat" -s "$(gr_sources "${sources[@]}")" $val $gunrock_args > "$log" 2>&1 || note "gunrock bfs failed on $name (see $log)"
    m=$(gr_source_medians "$log" bfs "${sources[@]}" | median)
    emit "peer=gunrock kernel=bfs graph=$name ms=$m runs=$((${#sources[@]} * trials)) gpu=1" \
      "$(grep -o 'PEERS_ANSWER.*' "$log" | sed 's/PEERS_ANSWER //')" \
      "errors=$(awk -F: '/Number of errors/ { gsub(/ /, "", $2); print $2 }' "$log")"
  fi
  if has_kernel sssp && [[ -f "$wgt" ]]; then
    log=$dir/gunrock-sssp.log
    "$gr/sssp" -m "$wgt" -s "$(gr_sources "${sources[@]}")" $val $gunrock_args > "$log" 2>&1 || note "gunrock sssp failed on $name (see $log)"
    m=$(gr_source_medians "$log" sssp "${sources[@]}" | median)
    emit "peer=gunrock kernel=sssp graph=$name ms=$m runs=$((${#sources[@]} * trials)) gpu=1" \
      "$(grep -o 'PEERS_ANSWER.*' "$log" | sed 's/PEERS_ANSWER //')" \
      "errors=$(awk -F: '/Number of errors/ { gsub(/ /, "", $2); print $2 }' "$log")"
  fi
  if has_kernel cc; then
    emit "peer=gunrock kernel=cc graph=$name ms=nan runs=0 skipped=no-connected-components-in-gunrock"
  fi
  if has_kernel pr; then
    log=$dir/gunrock-pr.log
    env ${GUNROCK_PR_TOL:+PEERS_PR_TOL=$GUNROCK_PR_TOL} "$gr/pr" -m "$pat" -n $((trials + 1)) $gunrock_args > "$log" 2>&1 ||
      note "gunrock pr failed on $name (see $log)"
    emit "peer=gunrock kernel=pr graph=$name ms=$(gr_times "$log" | median) runs=$trials gpu=1" \
      "iterations=$(gr_iters "$log") tol=${GUNROCK_PR_TOL:-1e-6(max-norm)}" \
      "$(grep -o 'PEERS_ANSWER.*' "$log" | sed 's/PEERS_ANSWER //')"
  fi
  if has_kernel tc; then
    local t tri=""
    local -a ts=()
    for ((t = 0; t <= trials; t++)); do   # one process a run (the example runs once); run 0 a warm-up
      log=$dir/gunrock-tc-$t.log
      "$gr/tc" -m "$pat" --reduce $([[ "$validate" == 1 && $t == 0 ]] && echo --validate) > "$log" 2>&1 ||
        note "gunrock tc failed on $name (see $log)"
      [[ $t == 0 ]] || ts+=("$(awk -F: '/GPU Elapsed Time/ { print $2 + 0 }' "$log")")
      tri=$(awk -F: '/Total Graph Traingles/ { printf "%.0f", $2 / 3 }' "$log")
    done
    emit "peer=gunrock kernel=tc graph=$name ms=$(printf '%s\n' "${ts[@]}" | median) runs=$trials gpu=1" \
      "triangles=$tri errors=$(awk -F: '/Number of errors/ { gsub(/ /, "", $2); print $2 }' "$dir/gunrock-tc-0.log")"
  fi
  if has_kernel bc; then
    local s tops="" total=0
    local -a meds=()
    for s in "${bc_list[@]}"; do   # one process per source: the scores are that source's alone
      log=$dir/gunrock-bc-r$s.log
      "$gr/bc" -m "$pat" -s "$(gr_sources "$s")" $gunrock_args > "$log" 2>&1 || note "gunrock bc failed on $name (see $log)"
      meds+=("$(gr_source_medians "$log" bc "$s" | median)")
      tops+="${tops:+/}$(grep -o 'PEERS_ANSWER top=[0-9]*' "$log" | sed 's/.*=//')"
    done
    emit "peer=gunrock kernel=bc graph=$name ms=$(printf '%s\n' "${meds[@]}" | sum) runs=$((${#bc_list[@]} * trials)) gpu=1" \
      "sources=$(IFS=,; echo "${bc_list[*]}") top_other_vertex_per_source=$tops"
  fi
}

# ---------------------------------------------------------------- main
for mtx in "${graphs[@]}"; do
  [[ -f "$mtx" ]] || { note "no graph file $mtx"; continue; }
  name=$(basename "$(basename "$mtx" .mtx)" .sg)
  dir=$out/$name; mkdir -p "$dir"
  note "graph $name"
  has_peer gapbs && run_gapbs "$mtx" "$name" "$dir"
  if has_peer gunrock; then
    if [[ -n "$gpu" ]]; then run_gunrock "$mtx" "$name" "$dir"
    else emit "peer=gunrock kernel=all graph=$name ms=nan runs=0 skipped=no-GPU"; fi
  fi
done
note "summary: $summary"
