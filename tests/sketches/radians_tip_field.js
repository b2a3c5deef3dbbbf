// angleMode(RADIANS), a custom field and a custom brush tip, query helpers.
async function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(RADIANS);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("white");
  brush.addField("diag", (t, field) => {
    for (let c = 0; c < field.length; c++)
      for (let r = 0; r < field[c].length; r++) field[c][r] = 45 + t;
    return field;
  });
  brush.field("diag");
  brush.add("dot", { type: "custom", weight: 6, pressure: [1, 1], scatter: 0, opacity: 150, tip: (g) => { g.fill(0); g.circle(0, 0, 100); } });
  const names = brush.box();
  brush.set(names[names.length - 1], "#3d5a80", 1);
  brush.beginStroke("curve", 100, 100);
  brush.move(HALF_PI, 50);
  brush.endStroke(PI);
  brush.arc(300, 300, 50, 0, HALF_PI);
  brush.hatch(6, QUARTER_PI);
  brush.rect(400, 400, 50, 50);
  if (brush.listFields().includes("diag")) brush.circle(50, 50, brush.listFields().length);
}
