package layout

import "flowdeck/ui/styles"

var testTheme = styles.New(true, true)
