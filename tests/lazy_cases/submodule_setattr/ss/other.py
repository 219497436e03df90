import ss

O = 1
