from app.a import A
