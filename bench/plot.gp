# plot.gp: draws bench/run.sh's CSV table as a PNG: throughput per runner for each
# algorithm and size (log scale), the start-up time of a static hello world, and the CPU
# time of the busybox programs (the rows after start-up, when there are any).
# usage: gnuplot -e "csv='table.csv'; png='chart.png'; seconds='1'; host='CPU model'" bench/plot.gp
if (!exists("csv") || !exists("png")) { print "plot.gp: set csv and png with -e"; exit status 2 }
if (!exists("seconds")) seconds = "?"
if (!exists("host")) host = "?"

set datafile separator ","
set datafile missing ""
stats csv using (strcol(3) eq "MB/s" ? 1 : 0) skip 1 nooutput
throughput_rows = int(STATS_sum)
stats csv using (strcol(3) eq "CPU s" ? 1 : 0) skip 1 nooutput
program_rows = int(STATS_sum)

set terminal pngcairo size 1600,800 font ",11"
set output png
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left horizontal
set xtics nomirror rotate by -35 scale 0
set ytics nomirror
array runner[5] = ["native", "x64emu", "x64emu portable", "QEMU 10", "QEMU 7.2"]
runner_colors = "#4d4d4d #1f77b4 #9ecae1 #d62728 #ff9896"
color(i) = word(runner_colors, i)

set multiplot title sprintf("examples/speed and busybox under each runner on %s (%s s per measurement; EVP encrypt, OpenSSL libcrypto.a)", host, seconds)

set origin 0, 0
set size 0.6, 0.95
set logscale y
set ylabel "MB/s (log scale; higher is better)"
plot for [i = 4:8] csv every ::0::(throughput_rows - 1) \
     using i:xtic(strcol(1) . " " . strcol(2)) skip 1 title runner[i - 3] lc rgb color(i - 3)

set origin 0.6, 0
set size 0.15, 0.95
unset logscale y
set yrange [0:*]
set ylabel "ms (median; lower is better)"
set key top left vertical
plot for [i = 4:8] csv every ::throughput_rows::throughput_rows \
     using i:xtic("start-up") skip 1 notitle lc rgb color(i - 3)

if (program_rows > 0) {
  set origin 0.75, 0
  set size 0.25, 0.95
  set ylabel "CPU s, 10 MB input (lower is better)"
  plot for [i = 4:8] csv every ::(throughput_rows + 1)::(throughput_rows + program_rows) \
       using i:xtic(strcol(1)) skip 1 notitle lc rgb color(i - 3)
}

unset multiplot
