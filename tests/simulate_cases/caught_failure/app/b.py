from app.a import A

B = 2
