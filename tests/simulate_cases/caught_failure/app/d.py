import app.e

D = 1
