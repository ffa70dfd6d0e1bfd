"""What a sheet says, read from its text positions and vector lines (docs/drawing-ai.md).

Regions (``regions``): the title block (the bordered box in the bottom-right corner holding
text, else the text in that corner), the notes block (a "NOTES" heading and the lines under it)
and the drawing area (everything else). ``title_block`` reads the title block's fields,
``scale`` the printed scale, ``labels`` the rooms, tags and fixtures in the drawing area,
``walls`` the wall strokes; ``summary`` and ``takeoff`` put them together. Boxes in answers are
normalised to 0..1 from the page's top-left corner: ``{x0, y0, x1, y1}``.
"""
