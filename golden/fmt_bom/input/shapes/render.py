from shapes.canvas import Canvas


def blank(label):
    canvas = Canvas()
    canvas.items.append(label)
    return canvas
