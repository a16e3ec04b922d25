# Drawn by ordo-bench compare. Run in this directory: gnuplot nodes-edges-curve.gp
set terminal pngcairo size 960,600
set output 'nodes-edges-curve.png'
set title 'nodes-edges: nodes/s per window (median of the kept rounds)'
set xlabel 'nodes created'
set ylabel 'nodes/s'
set grid
set key outside right
set yrange [0:*]
plot 'nodes-edges-curve.dat' index 0 with linespoints title 'ordo', 'nodes-edges-curve.dat' index 1 with linespoints title 'ordo-aa', 'nodes-edges-curve.dat' index 2 with linespoints title 'lmdb', 'nodes-edges-curve.dat' index 3 with linespoints title 'lmdb-append'
