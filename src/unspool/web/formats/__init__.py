"""One module per wire format; :data:`unspool.web._encode.FORMATS` is the table of them."""
