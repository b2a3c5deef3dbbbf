async function setup() {
  createCanvas(600, 600, WEBGL);
  brush.scaleBrushes(1.5);
  angleMode(DEGREES);
  noLoop();
}

function draw() {
  translate(-width / 2, -height / 2);
  background("#000000");
  randomSeed(519);

  brush.noStroke();
  brush.fillBleed(0);
  brush.fillTexture(0, 0);
  brush.wash("#111111", 255);
  brush.rect(0, 0, 600, 600);
  brush.noWash();
  const cols = ["#ff1744", "#00e676", "#2979ff", "#ffea00", "#d500f9"];
  for (let i = 0; i < 5; i++) {
    brush.wash(cols[i], 255);
    brush.rect(80 + i * 90, 150 + (i % 2) * 40, 80, 380);
    brush.noWash();
  }
  brush.set("marker", "#ffffff", 6);
  brush.line(50, 540, 550, 540);
}
