# the largest id decides the vertex count
1 2
18446744073709551615 1
