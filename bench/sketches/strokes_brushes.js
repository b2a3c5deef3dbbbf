function setup() {
  createCanvas(600, 600, WEBGL);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#fbf8f0");
  const brushes = ["pen", "rotring", "2B", "HB", "2H", "cpencil", "pastel", "crayon", "charcoal", "spray", "marker"];
  const cols = ["#1d3557", "#e63946", "#2a9d8f", "#6d597a", "#bc6c25"];
  for (let i = 0; i < brushes.length; i++) {
    brush.set(brushes[i], cols[i % 5], 2 + (i % 3));
    brush.beginStroke("curve", 50, 40 + i * 50);
    brush.move(10, 200, 1.2);
    brush.move(-15, 300, 0.8);
    brush.endStroke(0, 1);
  }
}
