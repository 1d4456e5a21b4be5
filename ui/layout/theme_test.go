package layout

import "github.com/flowdeck/flowdeck/ui/styles"

var testTheme = styles.New(true, true)
