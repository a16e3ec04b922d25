# Drawn by ordo-bench compare. Run in this directory: gnuplot nodes-seq-curve.gp
set terminal pngcairo size 960,600
set output 'nodes-seq-curve.png'
set title 'nodes-seq: nodes/s per window (median of the kept rounds)'
set xlabel 'nodes created'
set ylabel 'nodes/s'
set grid
set key outside right
set yrange [0:*]
plot 'nodes-seq-curve.dat' index 0 with linespoints title 'ordo', 'nodes-seq-curve.dat' index 1 with linespoints title 'ordo-aa', 'nodes-seq-curve.dat' index 2 with linespoints title 'lmdb', 'nodes-seq-curve.dat' index 3 with linespoints title 'lmdb-append'
