from q.a import TAG

SEED = len(TAG)
