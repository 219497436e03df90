class ModelAdmin:
    actions = []
