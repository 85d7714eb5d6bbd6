1 2
% comment
2 3 4
