from admin import ModelAdmin, actions


class AdminSite:
    default_admin = ModelAdmin
    default_actions = [actions.delete_selected]


site = AdminSite()
