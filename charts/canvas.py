"""What the charts share: one palette (the page's), Pillow's own font, and a titled canvas."""

from PIL import Image, ImageDraw, ImageFont

CAPSNET, CNN = "#6366f1", "#d95f02"  # as on the page: Gradio's Soft accent, and the CNN's orange
INK, GRID, PAPER = "#1f2937", "#e5e7eb", "#ffffff"


def font(size: int) -> ImageFont.FreeTypeFont:
    """Pillow's own font (Aileron), the same on every machine; it has "°" but neither "−" nor "×"."""
    return ImageFont.load_default(size=size)


def titled_canvas(
    size: tuple[int, int], title: str, at: tuple[int, int], title_size: int
) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A blank chart of ``size`` pixels on PAPER with ``title`` in INK at ``at``, and its drawing context."""
    picture = Image.new("RGB", size, PAPER)
    draw = ImageDraw.Draw(picture)
    draw.text(at, title, fill=INK, font=font(title_size))
    return picture, draw
