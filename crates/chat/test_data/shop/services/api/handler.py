def handle(request):
    return {"ok": True}
