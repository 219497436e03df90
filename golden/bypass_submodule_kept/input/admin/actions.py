def delete_selected(request):
    return request
