lazy from ss import sub

import ss.other
