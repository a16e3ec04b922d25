# Drawn by ordo-bench compare. Run in this directory: gnuplot nodes-random-curve.gp
set terminal pngcairo size 960,600
set output 'nodes-random-curve.png'
set title 'nodes-random: nodes/s per window (median of the kept rounds)'
set xlabel 'nodes created'
set ylabel 'nodes/s'
set grid
set key outside right
set yrange [0:*]
plot 'nodes-random-curve.dat' index 0 with linespoints title 'ordo', 'nodes-random-curve.dat' index 1 with linespoints title 'ordo-aa', 'nodes-random-curve.dat' index 2 with linespoints title 'lmdb', 'nodes-random-curve.dat' index 3 with linespoints title 'lmdb-append'
