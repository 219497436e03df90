from ss.other import O

S = O
