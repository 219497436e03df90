from pkg import impllib

KIND = impllib.Thing
