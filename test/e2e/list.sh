#!/usr/bin/env bash
# lociprof list: exits 0, and what it says matches what this machine has,
# read here independently (sysfs, /proc/cpuinfo, nproc). Text and --json
# must say the same.
. "$(dirname "$0")/lib.sh"

EVDEV=/sys/bus/event_source/devices
CACHE=/sys/devices/system/cpu/cpu0/cache

"$LOCIPROF" list >"$TMP/list.txt" 2>"$TMP/list.err"; rc=$?
if [ $rc = 0 ] && [ -s "$TMP/list.txt" ]; then ok "list exits 0"; else fail "list exits 0" "exit $rc: $(head -c 300 "$TMP/list.err")"; fi
for s in CPU Facilities "Debug registers" Kernel Topology Caches; do
	grep -q "^$s\$" "$TMP/list.txt" && ok "list shows section $s" || fail "list shows section $s" "missing"
done

"$LOCIPROF" list --json >"$TMP/list.json" 2>"$TMP/json.err"; rc=$?
if [ $rc = 0 ] && python3 -m json.tool "$TMP/list.json" >/dev/null 2>"$TMP/jt.err"; then
	ok "list --json parses"
else
	fail "list --json parses" "exit $rc: $(head -c 300 "$TMP/jt.err")"
fi
# jv PATH: one value out of the JSON (python repr: True/False/None)
jv() { python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    v=v[int(k)] if isinstance(v,list) else v[k]
print(v)' "$TMP/list.json" "$1" 2>/dev/null; }
# tv KEY: the value column of "  KEY   value" in the text output
tv() { awk -v k="$1" '{ line=$0; sub(/^  /, "", line) } index(line, k" ")==1 { sub("^" k " +", "", line); print line; exit }' "$TMP/list.txt"; }

# facilities: no PMU in sysfs means no PEBS; no ibs_op means no IBS
if [ ! -e $EVDEV/cpu ] && [ ! -e $EVDEV/cpu_core ]; then
	t=$(tv pebs); j=$(jv facilities.pebs.usable)
	if [ "${t%% *}" = no ] && [ "$j" = False ]; then ok "no core PMU: pebs no"; else fail "no core PMU: pebs no" "text '$t', json $j"; fi
else
	skip "no core PMU: pebs no" "this machine has a core PMU"
fi
if [ ! -e $EVDEV/ibs_op ]; then
	t=$(tv ibs); j=$(jv facilities.ibs.usable)
	if [ "${t%% *}" = no ] && [ "$j" = False ]; then ok "no ibs_op: ibs no"; else fail "no ibs_op: ibs no" "text '$t', json $j"; fi
else
	skip "no ibs_op: ibs no" "this machine has ibs_op"
fi
t=$(tv soft); j=$(jv facilities.soft.usable)
case "${t%% *}:$j" in
yes:True|no:False) ok "soft: text and json agree" ;;
*) fail "soft: text and json agree" "text '$t', json $j" ;;
esac

# x86 has 4 debug registers per thread; the 5th breakpoint fails with ENOSPC
if [ "$(uname -m)" = x86_64 ] && [ -e $EVDEV/breakpoint ]; then
	t=$(tv watchpoints/thread); j=$(jv debug_registers.count); s=$(jv debug_registers.stopped_by)
	if [ "$t" = 4 ] && [ "$j" = 4 ] && [ "$s" = ENOSPC ]; then ok "4 debug registers"; else fail "4 debug registers" "text '$t', json $j, stopped by $s"; fi
else
	skip "4 debug registers" "not x86-64 or no breakpoint PMU"
fi

# CPU identity against /proc/cpuinfo
m=$(awk -F': *' '/^model\t/ {print $2; exit}' /proc/cpuinfo)
f=$(awk -F': *' '/^cpu family/ {print $2; exit}' /proc/cpuinfo)
t=$(tv model); j=$(jv cpu.model)
if [ -n "$m" ] && [ "${t%% *}" = "$m" ] && [ "$j" = "$m" ] && [ "$(jv cpu.family)" = "$f" ]; then
	ok "cpu family/model match /proc/cpuinfo"
else
	fail "cpu family/model match /proc/cpuinfo" "cpuinfo $f/$m, text model '$t', json $(jv cpu.family)/$j"
fi

# kernel: paranoid and release
p=$(cat /proc/sys/kernel/perf_event_paranoid)
if [ "$(tv perf_event_paranoid)" = "$p" ] && [ "$(jv kernel.perf_event_paranoid)" = "$p" ]; then ok "perf_event_paranoid $p"; else fail "perf_event_paranoid $p" "text '$(tv perf_event_paranoid)', json $(jv kernel.perf_event_paranoid)"; fi
[ "$(jv kernel.release)" = "$(uname -r)" ] && ok "kernel release" || fail "kernel release" "$(jv kernel.release) vs $(uname -r)"

# topology
n=$(getconf _NPROCESSORS_ONLN)
t=$(tv cpus); j=$(jv topology.cpus)
if [ "${t%% *}" = "$n" ] && [ "$j" = "$n" ]; then ok "$n online cpus"; else fail "$n online cpus" "text '$t', json $j"; fi
sockets=$(cat /sys/devices/system/cpu/cpu*/topology/physical_package_id 2>/dev/null | sort -u | wc -l)
[ "$(jv topology.sockets)" = "$sockets" ] && ok "$sockets socket(s)" || fail "$sockets socket(s)" "json $(jv topology.sockets)"

# caches: every index of cpu0, size as sysfs says it, in text and JSON
if [ -d $CACHE ]; then
	for d in $CACHE/index*; do
		level=$(cat $d/level); type=$(cat $d/type); size=$(cat $d/size)
		case $type in Data) name=L${level}d ;; Instruction) name=L${level}i ;; *) name=L$level ;; esac
		row=$(awk -v n="$name" '$1 == n {print $3; exit}' "$TMP/list.txt")
		kb=${size%K}
		js=$(python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["caches"]:
    if c["name"] == sys.argv[2]: print(c["size"], c["ways"], c["sets"]); break' "$TMP/list.json" "$name")
		want_js="$((kb * 1024)) $(cat $d/ways_of_associativity) $(cat $d/number_of_sets)"
		if [ "$row" = "$size" ] && [ "$js" = "$want_js" ]; then
			ok "$name $size"
		else
			fail "$name $size" "text '$row', json '$js' (want '$want_js')"
		fi
	done
	l3=$(cat $CACHE/index3/shared_cpu_list 2>/dev/null)
	if [ -n "$l3" ]; then
		j=$(python3 -c 'import json,sys
for c in json.load(open(sys.argv[1]))["caches"]:
    if c["name"] == "L3": print("\n".join(c["shared_cpu_lists"]))' "$TMP/list.json")
		# cpu0's L3 instance is one of those listed
		echo "$j" | grep -qx -- "$l3" && ok "L3 shared by $l3" || fail "L3 shared by $l3" "json '$j'"
	fi
else
	skip "cache sizes" "no $CACHE"
fi

"$LOCIPROF" list -v >"$TMP/v.txt" 2>&1; rc=$?
if [ $rc = 0 ] && grep -q "^  cpu 0 .*core .*socket" "$TMP/v.txt"; then ok "list -v shows cpus"; else fail "list -v shows cpus" "exit $rc"; fi
"$LOCIPROF" list extra >/dev/null 2>"$TMP/err"; rc=$?
[ $rc = 129 ] && ok "list with an argument exits 129" || fail "list with an argument exits 129" "exit $rc"

# --costs: measured costs and the floors computed from them
"$LOCIPROF" list --costs --json >"$TMP/costs.json" 2>"$TMP/costs.err"; rc=$?
if [ $rc = 0 ] && python3 -m json.tool "$TMP/costs.json" >/dev/null 2>&1; then
	ok "list --costs --json exits 0 and parses"
	python3 - "$TMP/costs.json" >"$TMP/costs.chk" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))["costs"]
P = c["period_ns"]
def us(k): return c[k]["us"]
out = []
# the soft facility samples on every machine CI runs on; watchpoints trap where the
# hypervisor delivers debug exceptions (the shell skips the trap lines where not)
for k in ("sample", "trap"):
    out.append("%s measured: %s" % (k, "yes" if us(k) is not None and us(k) > 0 else "no (%r)" % c[k]["reason"]))
out.append("trap runs hit the watch: %s" % ("yes" if c["trap"]["events"] >= 1000 else "no (%r)" % c["trap"]["events"]))
# each floor is P / (P - O) of the costs it names, recomputed here
parts = {"sample": ("sample",), "sync": ("sample", "hold"),
         "async_trap": ("sample", "arm", "trap"), "sync_trap": ("sample", "hold", "trap")}
bad = []
for f in c["floors"]:
    if any(us(k) is None for k in parts[f["name"]]):
        bad.append(f["name"] + " listed with an unmeasured part")
        continue
    o = sum(us(k) for k in parts[f["name"]])
    if f["overhead_us"] is None or abs(f["overhead_us"] - o) > 1e-6 * o:
        bad.append(f["name"])
    elif f["ratio"] is None:	# null only when the costs fill the period
        if P > o * 1e3:
            bad.append(f["name"] + " ratio null below the period")
    elif P <= o * 1e3 or abs(f["ratio"] - P / (P - o * 1e3)) > 1e-9 * f["ratio"]:
        bad.append(f["name"])
out.append("floors recomputed: %s" % ("yes" if c["floors"] and not bad else "no %r" % bad))
print("\n".join(out))
PY
	[ $? = 0 ] || fail "costs: the JSON checks ran" "python failed on $(head -c 300 "$TMP/costs.json")"
	while read -r line; do
		name=${line%%: *}
		case "$line" in
		*": yes") ok "costs: $name" ;;
		"trap "*) if wp_fires; then fail "costs: $name" "${line#*: }"
			  else skip "costs: $name" "$WP_REASON"; fi ;;
		*) fail "costs: $name" "${line#*: }" ;;
		esac
	done <"$TMP/costs.chk"
else
	fail "list --costs --json exits 0 and parses" "exit $rc: $(head -c 300 "$TMP/costs.err")"
fi
"$LOCIPROF" list --costs --attrs >/dev/null 2>"$TMP/err"; rc=$?
if [ $rc = 129 ] && grep -q -- "--costs goes alone" "$TMP/err"; then ok "list --costs --attrs exits 129"; else fail "list --costs --attrs exits 129" "exit $rc: $(head -c 200 "$TMP/err")"; fi
