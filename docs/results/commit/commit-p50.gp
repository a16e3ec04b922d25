# Drawn by ordo-bench compare. Run in this directory: gnuplot commit-p50.gp
set terminal pngcairo size 960,600
set output 'commit-p50.png'
set title 'commit: one-row durable commit, p50 latency (median of the kept rounds)'
set xlabel 'rows preloaded'
set ylabel 'p50 latency (us)'
set grid
set key outside right
set yrange [0:*]
set logscale x 10
plot 'commit-p50.dat' index 0 with linespoints title 'ordo', 'commit-p50.dat' index 1 with linespoints title 'ordo-aa', 'commit-p50.dat' index 2 with linespoints title 'lmdb', 'commit-p50.dat' index 3 with linespoints title 'sqlite', 'commit-p50.dat' index 4 with linespoints title 'ordo-uring', 179.151 with lines dashtype 2 title 'fdatasync floor (ordo runs)'
